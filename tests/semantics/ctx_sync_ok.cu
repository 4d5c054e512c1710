// ctx_sync_ok.cu - correct: cuCtxSynchronize (driver API) "blocks until the
// current context has completed all preceding requested tasks", so the
// read on a second non-blocking stream comes after the write.
// rule: SYNC_CONTEXT
// link: -lcuda
#include <cuda.h>
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = dalloc();
    write_k<<<GRID, 0, s1>>>(d, N);
    if (cuCtxSynchronize() != CUDA_SUCCESS) {
        std::fprintf(stderr, "cuCtxSynchronize failed\n");
        return 1;
    }
    read_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("ctx_sync_ok: done\n");
    return 0;
}

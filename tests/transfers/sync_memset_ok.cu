// sync_memset_ok.cu - the fixed twin of sync_memset.cu: cudaMemsetAsync on
// the stream that uses the memory.  No finding expected.
#include "spin.h"

int main()
{
    const int n = 1 << 20, iters = 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *d = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    for (int i = 0; i < iters; i++) {
        CHECK(cudaMemsetAsync(d, 0, bytes, s));
        scale<<<blocks_for(n), 256, 0, s>>>(d, n, 2.0f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    std::printf("sync_memset_ok: ok\n");
    return 0;
}

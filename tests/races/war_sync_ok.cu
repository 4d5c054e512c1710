// war_sync_ok.cu - CORRECT twin of war_kernels: the host synchronizes s1
// before issuing the write on s2.
// rule: SYNC_STREAM
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = dalloc();
    CHECK(cudaMemsetAsync(d, 0, N * sizeof(float), s1));
    read_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaStreamSynchronize(s1));
    write_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("war_sync_ok: done\n");
    return 0;
}

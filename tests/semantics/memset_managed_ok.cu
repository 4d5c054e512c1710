// memset_managed_ok.cu - correct: cudaMemset on managed memory is fully
// synchronous with the host ("API synchronization behavior": the
// synchronous memset functions are synchronous when the target is pinned
// host memory or a Unified Memory region), so a kernel on a non-blocking
// stream issued afterwards sees the zeros.
// rule: MEMSET_SYNC_MANAGED
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *m = nullptr;
    CHECK(cudaMallocManaged(&m, N * sizeof(float)));
    CHECK(cudaMemset(m, 0, N * sizeof(float)));
    read_k<<<GRID, 0, s>>>(m, N);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(m));
    std::printf("memset_managed_ok: done\n");
    return 0;
}

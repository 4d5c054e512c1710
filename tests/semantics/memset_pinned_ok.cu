// memset_pinned_ok.cu - correct: cudaMemset on pinned host memory is fully
// synchronous with the host ("API synchronization behavior"), so a kernel
// on a non-blocking stream issued afterwards sees the zeros.
// rule: MEMSET_SYNC_PINNED
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *h = nullptr;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMemset(h, 0, N * sizeof(float)));
    read_k<<<GRID, 0, s>>>(h, N);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeHost(h));
    std::printf("memset_pinned_ok: done\n");
    return 0;
}

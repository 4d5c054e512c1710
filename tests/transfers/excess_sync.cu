// excess_sync.cu - BUGGY sample for `excess-sync`: the host waits for the
// stream after every step although it needs no result until the end, so
// it cannot queue the next step while the GPU works.  (The spin kernel
// keeps a real GPU busy for ~10 ms; on the simulated CUDA the test sets
// CUDALENS_SIM_KERNEL_NS so that every kernel takes a few ms.)
// Twin: excess_sync_ok.cu.
#include "spin.h"

int main()
{
    const int iters = 30;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    for (int i = 0; i < iters; i++) {
        spin<<<1, 1, 0, s>>>(10 * 1000 * 1000);  // ~10 ms on a GPU
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(s)); // expect: excess-sync
    }
    CHECK(cudaStreamDestroy(s));
    std::printf("excess_sync: ok\n");
    return 0;
}

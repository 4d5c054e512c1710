// sync_memset.cu - BUGGY sample for `sync-memset`: a cudaMemset (not
// stream-ordered: it goes to the legacy default stream) per iteration.
// Twin: sync_memset_ok.cu.
#include "spin.h"

int main()
{
    const int n = 1 << 20, iters = 20;
    const size_t bytes = n * sizeof(float);
    float *d = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    for (int i = 0; i < iters; i++) {
        CHECK(cudaMemset(d, 0, bytes)); // expect: sync-memset
        scale<<<blocks_for(n), 256>>>(d, n, 2.0f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("sync_memset: ok\n");
    return 0;
}

// free_before_sync.cu - BUG: pinned memory freed while an async copy into it
// is still in flight.
// rule: FREE
#include "common.h"

int main()
{
    float *d, *h;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMemset(d, 0, N * sizeof(float)));
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeHost(h)); // expect: pinned-free-before-sync
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(d));
    std::printf("free_before_sync: done\n");
    return 0;
}

// repeated_pinning.cu - BUGGY sample for `repeated-pinning`: a pinned
// staging buffer allocated for every batch (PyTorch: pin_memory() inside
// the loop), released when the work is done.  Pinning maps and locks
// pages; done per batch it costs more than the copy saves.
// Twin: repeated_pinning_ok.cu.
#include "spin.h"
#include <cstring>

int main()
{
    const int n = 1 << 16, iters = 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *d = nullptr, *h[iters];
    CHECK(cudaMalloc(&d, bytes));
    for (int i = 0; i < iters; i++) {
        CHECK(cudaMallocHost(&h[i], bytes)); // expect: repeated-pinning
        std::memset(h[i], 0, bytes);
        CHECK(cudaMemcpyAsync(d, h[i], bytes, cudaMemcpyHostToDevice, s));
        scale<<<blocks_for(n), 256, 0, s>>>(d, n, 2.0f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < iters; i++)
        CHECK(cudaFreeHost(h[i]));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    std::printf("repeated_pinning: ok\n");
    return 0;
}

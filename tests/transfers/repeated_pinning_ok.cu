// repeated_pinning_ok.cu - the fixed twin of repeated_pinning.cu: one
// pinned buffer, allocated once, holds the staging area of every
// iteration, so nothing waits and nothing is pinned again.  No finding
// expected.
#include "spin.h"
#include <cstring>

int main()
{
    const int n = 1 << 16, iters = 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *d = nullptr, *h = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMallocHost(&h, bytes * iters));  // pinned once
    for (int i = 0; i < iters; i++) {
        float *slot = h + (size_t)i * n;  // not in use by an earlier copy
        std::memset(slot, 0, bytes);
        CHECK(cudaMemcpyAsync(d, slot, bytes, cudaMemcpyHostToDevice, s));
        scale<<<blocks_for(n), 256, 0, s>>>(d, n, 2.0f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    std::printf("repeated_pinning_ok: ok\n");
    return 0;
}

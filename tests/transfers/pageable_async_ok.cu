// pageable_async_ok.cu - the fixed twin of pageable_async.cu: the host
// buffer is pinned once (cudaMallocHost) and reused, so every
// cudaMemcpyAsync is a real asynchronous DMA.  No finding expected.
#include "spin.h"
#include <cstring>

int main()
{
    const int n = 1 << 20, iters = 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *d = nullptr, *h = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMallocHost(&h, bytes));  // pinned once, outside the loop
    std::memset(h, 0, bytes);
    for (int i = 0; i < iters; i++) {
        // the copy reads h while it is in flight: do not write h before the
        // stream is done with it (a real program double-buffers)
        CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s));
        scale<<<blocks_for(n), 256, 0, s>>>(d, n, 2.0f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    std::printf("pageable_async_ok: ok\n");
    return 0;
}

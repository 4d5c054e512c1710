// pageable_async.cu - BUGGY sample for `pageable-async-copy`: cudaMemcpyAsync
// from a malloc'd (pageable) buffer in a loop.  CUDA stages every copy
// through a pinned buffer, so it is neither asynchronous nor fast.  One
// copy from pinned memory gives the report a bandwidth to compare with.
// Twin: pageable_async_ok.cu.
#include "spin.h"
#include <cstring>

int main()
{
    const int n = 1 << 20, iters = 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *d = nullptr, *ref = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    float *h = (float *)std::malloc(bytes);  // pageable: the bug
    std::memset(h, 0, bytes);
    CHECK(cudaMallocHost(&ref, bytes));
    CHECK(cudaMemcpyAsync(d, ref, bytes, cudaMemcpyHostToDevice, s));
    for (int i = 0; i < iters; i++) {
        h[0] = (float)i;
        CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s)); // expect: pageable-async-copy
        scale<<<blocks_for(n), 256, 0, s>>>(d, n, 2.0f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeHost(ref));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    std::free(h);
    std::printf("pageable_async: ok\n");
    return 0;
}

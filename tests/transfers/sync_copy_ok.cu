// sync_copy_ok.cu - the fixed twin of sync_copy.cu: the input is copied
// once before the loop, results are copied back asynchronously into pinned
// memory, and the host synchronizes once at the end.  No finding expected.
#include "spin.h"

int main()
{
    const int n = 1 << 18, iters = 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *d = nullptr, *dd = nullptr, *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMalloc(&dd, bytes * iters));
    CHECK(cudaMallocHost(&in, bytes));
    CHECK(cudaMallocHost(&out, bytes * iters));
    for (int i = 0; i < n; i++)
        in[i] = 1.0f;
    CHECK(cudaMemcpyAsync(d, in, bytes, cudaMemcpyHostToDevice, s));
    for (int i = 0; i < iters; i++) {
        CHECK(cudaMemcpyAsync(dd + (size_t)i * n, d, bytes, cudaMemcpyDeviceToDevice, s));
        scale<<<blocks_for(n), 256, 0, s>>>(dd + (size_t)i * n, n, 2.0f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaMemcpyAsync(out, dd, bytes * iters, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeHost(in));
    CHECK(cudaFreeHost(out));
    CHECK(cudaFree(dd));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    std::printf("sync_copy_ok: ok\n");
    return 0;
}

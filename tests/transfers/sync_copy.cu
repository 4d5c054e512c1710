// sync_copy.cu - BUGGY sample for `sync-copy`: per iteration a blocking
// cudaMemcpy of the input.  The result is copied with cudaMemcpyAsync and
// the stream synchronized on the next line: the copy at that line is
// asynchronous as asked (pinned memory), so it is not a sync-copy; the
// PyTorch-style pair (tensor.to(device) without non_blocking) is one only
// when copy and synchronization come from the same line
// (tests/gpu/torch_*.py).  Twin: sync_copy_ok.cu.
#include "spin.h"

int main()
{
    const int n = 1 << 18, iters = 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *d = nullptr, *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMallocHost(&in, bytes));
    CHECK(cudaMallocHost(&out, bytes * iters));
    for (int i = 0; i < n; i++)
        in[i] = 1.0f;
    for (int i = 0; i < iters; i++) {
        CHECK(cudaMemcpy(d, in, bytes, cudaMemcpyHostToDevice)); // expect: sync-copy
        scale<<<blocks_for(n), 256, 0, s>>>(d, n, 2.0f);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(out + (size_t)i * n, d, bytes, cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
    }
    CHECK(cudaFreeHost(in));
    CHECK(cudaFreeHost(out));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    std::printf("sync_copy: ok\n");
    return 0;
}

// sync_copy_legacy.cu - BUGGY sample for `sync-copy`: per iteration an
// asynchronous copy of the input into a blocking stream, waited for at
// once by a synchronization of the legacy default stream on the same line
// (the legacy stream waits for the blocking streams of its device, [STREAM]
// in include/cudalens/ops.def: STREAM_LEGACY_BLOCKING), so the copy is a
// blocking one.  Twin: sync_copy_legacy_ok.cu (a non-blocking stream, which
// the legacy stream's synchronization does not wait for).
#include "spin.h"

int main()
{
    const int n = 1 << 18, iters = 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *d = nullptr, *in = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMallocHost(&in, bytes));
    for (int i = 0; i < n; i++)
        in[i] = 1.0f;
    for (int i = 0; i < iters; i++) {
        CHECK(cudaMemcpyAsync(d, in, bytes, cudaMemcpyHostToDevice, s)); CHECK(cudaStreamSynchronize(0)); // expect: sync-copy
        scale<<<blocks_for(n), 256, 0, s>>>(d, n, 2.0f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeHost(in));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    std::printf("sync_copy_legacy: ok\n");
    return 0;
}

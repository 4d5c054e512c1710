// sync_copy_legacy_ok.cu - the fixed twin of sync_copy_legacy.cu: the
// copies into the blocking stream stay asynchronous, and the host waits
// once, after the loop, by a synchronization of the legacy default stream
// (which waits for the blocking streams of its device: include/cudalens/
// ops.def STREAM_LEGACY_BLOCKING).  No finding expected.
#include "spin.h"

int main()
{
    const int n = 1 << 18, iters = 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *d = nullptr, *in = nullptr;
    CHECK(cudaMalloc(&d, bytes * iters));
    CHECK(cudaMallocHost(&in, bytes));
    for (int i = 0; i < n; i++)
        in[i] = 1.0f;
    for (int i = 0; i < iters; i++) {
        CHECK(cudaMemcpyAsync(d + (size_t)i * n, in, bytes, cudaMemcpyHostToDevice, s));
        scale<<<blocks_for(n), 256, 0, s>>>(d + (size_t)i * n, n, 2.0f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaFreeHost(in));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    std::printf("sync_copy_legacy_ok: ok\n");
    return 0;
}

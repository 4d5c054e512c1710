// default_stream_ok.cu - the fixed twin of default_stream.cu: the streams
// are created with cudaStreamNonBlocking, so the legacy default stream's
// work no longer orders them.  No finding expected.
#include "spin.h"

int main()
{
    const int n = 1 << 16, iters = 10;
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    float *a = nullptr, *b = nullptr, *c = nullptr;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    CHECK(cudaMalloc(&c, n * sizeof(float)));
    for (int i = 0; i < iters; i++) {
        scale<<<blocks_for(n), 256, 0, s1>>>(a, n, 2.0f);
        scale<<<blocks_for(n), 256, 0, s2>>>(b, n, 2.0f);
        scale<<<blocks_for(n), 256>>>(c, n, 0.5f);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    std::printf("default_stream_ok: ok\n");
    return 0;
}

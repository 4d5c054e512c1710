// default_stream.cu - BUGGY sample for `default-stream-serialization`: two
// streams created with cudaStreamCreate (blocking) run independent work,
// and a kernel on the legacy default stream in between makes the GPU wait
// for both streams and then makes both wait for it: no overlap.
// Twin: default_stream_ok.cu.
#include "spin.h"

int main()
{
    const int n = 1 << 16, iters = 10;
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreate(&s2));
    float *a = nullptr, *b = nullptr, *c = nullptr;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    CHECK(cudaMalloc(&c, n * sizeof(float)));
    for (int i = 0; i < iters; i++) {
        scale<<<blocks_for(n), 256, 0, s1>>>(a, n, 2.0f);
        scale<<<blocks_for(n), 256, 0, s2>>>(b, n, 2.0f);
        scale<<<blocks_for(n), 256>>>(c, n, 0.5f); // expect: default-stream-serialization
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    std::printf("default_stream: ok\n");
    return 0;
}

// pageable_async_both.cu - two cudaMemcpyAsync calls on pageable memory (a
// std::vector) in one function: host-to-device, then device-to-host.  Each
// is staged through a pinned buffer by the driver and is not asynchronous;
// both lines must be reported, although a synchronization follows the
// second: the program asked for an async copy at that line.
#include <vector>
#include "spin.h"

#define N (1 << 16)

int main()
{
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<float> h(N, 1.0f);
    float *d = nullptr;
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    for (int i = 0; i < 3; i++) {
        CHECK(cudaMemcpyAsync(d, h.data(), N * sizeof(float), cudaMemcpyHostToDevice, s)); // expect: pageable-async-copy
        CHECK(cudaMemcpyAsync(h.data(), d, N * sizeof(float), cudaMemcpyDeviceToHost, s)); // expect: pageable-async-copy
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(d));
    std::printf("pageable_async_both: done\n");
    return 0;
}

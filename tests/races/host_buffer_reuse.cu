// host_buffer_reuse.cu - BUG: a pinned staging buffer receives a result on
// s1 (device to host) while s2 already uploads from it (host to device).
// rule: ASYNC_OTHER
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *h = nullptr;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    float *a = dalloc(), *b = dalloc();
    CHECK(cudaMemset(a, 0, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpyAsync(h, a, N * sizeof(float), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaMemcpyAsync(b, h, N * sizeof(float), cudaMemcpyHostToDevice, s2)); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFreeHost(h));
    std::printf("host_buffer_reuse: done\n");
    return 0;
}

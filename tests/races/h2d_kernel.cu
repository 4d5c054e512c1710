// h2d_kernel.cu - BUG: an async copy from pinned memory fills a buffer on
// s1 while a kernel on s2 reads it.
// rule: ASYNC_OTHER
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *h = nullptr;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    float *d = dalloc();
    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s1));
    read_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    std::printf("h2d_kernel: done\n");
    return 0;
}

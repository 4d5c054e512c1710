// kernel_d2h.cu - BUG: a kernel on s1 computes a result, an async copy on
// s2 brings it to pinned host memory without waiting for the kernel.
// rule: ASYNC_OTHER
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *h = nullptr;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    float *d = dalloc();
    write_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s2)); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    std::printf("kernel_d2h: done\n");
    return 0;
}

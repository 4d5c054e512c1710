// freeasync_in_use.cu - BUG: the buffer is freed with cudaFreeAsync on s1
// while a kernel on s2 may still use it.
// rule: FREE
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = nullptr;
    CHECK(cudaMallocAsync(&d, N * sizeof(float), s1));
    CHECK(cudaStreamSynchronize(s1));
    write_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaFreeAsync(d, s1)); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    std::printf("freeasync_in_use: done\n");
    return 0;
}

// war_kernels.cu - BUG (write after read): s1 reads a buffer, s2 overwrites
// it before the read is known to be done.
// rule: STREAM_ORDER
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = dalloc();
    CHECK(cudaMemsetAsync(d, 0, N * sizeof(float), s1));
    read_k<<<GRID, 0, s1>>>(d, N);
    write_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("war_kernels: done\n");
    return 0;
}

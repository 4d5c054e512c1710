// raw_kernels.cu - BUG (read after write): a kernel on s1 writes a buffer,
// a kernel on s2 reads it with no event or synchronization in between.
// rule: STREAM_ORDER
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = dalloc();
    write_k<<<GRID, 0, s1>>>(d, N);
    read_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("raw_kernels: done\n");
    return 0;
}

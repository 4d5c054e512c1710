// waw_memset.cu - BUG (write after write): two cudaMemsetAsync on two
// streams fill the same buffer; which value wins is undefined.
// rule: MEMSET_ASYNC
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = dalloc();
    CHECK(cudaMemsetAsync(d, 0, N * sizeof(float), s1));
    CHECK(cudaMemsetAsync(d, 0xff, N * sizeof(float), s2)); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("waw_memset: done\n");
    return 0;
}

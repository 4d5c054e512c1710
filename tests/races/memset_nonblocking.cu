// memset_nonblocking.cu - BUG: cudaMemset of device memory is asynchronous
// to the host; a kernel on a non-blocking stream may see the old contents.
// rule: MEMSET_SYNC NONBLOCKING_STREAM
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *d = dalloc();
    CHECK(cudaMemset(d, 0, N * sizeof(float)));
    read_k<<<GRID, 0, s>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("memset_nonblocking: done\n");
    return 0;
}

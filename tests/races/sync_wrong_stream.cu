// sync_wrong_stream.cu - BUG: the host synchronizes s2 (idle) instead of
// s1 before reusing the buffer on s2.
// rule: SYNC_STREAM
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = dalloc();
    write_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaStreamSynchronize(s2));
    add_k<<<GRID, 0, s2>>>(d, d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("sync_wrong_stream: done\n");
    return 0;
}

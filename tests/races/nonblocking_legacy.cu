// nonblocking_legacy.cu - BUG: a kernel on the legacy default stream writes,
// a kernel on a non-blocking stream reads: non-blocking streams do not
// synchronize with stream 0.
// rule: NONBLOCKING_STREAM LEGACY_STREAM
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *d = dalloc();
    write_k<<<GRID>>>(d, N);
    read_k<<<GRID, 0, s>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("nonblocking_legacy: done\n");
    return 0;
}

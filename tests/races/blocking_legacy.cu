// blocking_legacy.cu - the twin of nonblocking_legacy with a blocking
// stream: correct today, because the legacy default stream synchronizes
// with blocking streams, but only implicitly: with cudaStreamNonBlocking
// or --default-stream per-thread it races.  cudalens warns (masked-race).
// rule: LEGACY_STREAM
#include "races.h"

int main()
{
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *d = dalloc();
    write_k<<<GRID>>>(d, N);
    read_k<<<GRID, 0, s>>>(d, N); // expect: masked-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("blocking_legacy: done\n");
    return 0;
}

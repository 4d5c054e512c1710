// ptds_legacy_ok.cu - correct: "the per-thread default stream is not a
// non-blocking stream and will synchronize with the legacy default stream"
// ("Stream synchronization behavior"), so a read on the legacy default
// stream waits for a write on the per-thread default stream.  The order is
// implicit, as in races/blocking_legacy: cudalens warns (masked-race).
// rule: PER_THREAD_STREAM LEGACY_STREAM
#include "races.h"

int main()
{
    float *d = dalloc();
    write_k<<<GRID, 0, cudaStreamPerThread>>>(d, N);
    read_k<<<GRID, 0, cudaStreamLegacy>>>(d, N); // expect: masked-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("ptds_legacy_ok: done\n");
    return 0;
}

// never_waited.cu - BUG: the event is recorded after the write but nobody
// waits for it (neither s2 nor the host).
// rule: EVENT_RECORD SYNC_EVENT
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    float *d = dalloc();
    write_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaEventRecord(e, s1));
    read_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaEventSynchronize(e));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("never_waited: done\n");
    return 0;
}

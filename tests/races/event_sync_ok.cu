// event_sync_ok.cu - CORRECT twin of never_waited: the host waits for the
// event (cudaEventSynchronize) before issuing the read on s2.
// rule: SYNC_EVENT EVENT_RECORD
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    float *d = dalloc();
    write_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaEventRecord(e, s1));
    CHECK(cudaEventSynchronize(e));
    read_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("event_sync_ok: done\n");
    return 0;
}

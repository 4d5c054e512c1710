// event_rerecord_ok.cu - CORRECT twin of event_too_early: the event is
// recorded early and again after the write; a wait uses the latest record.
// rule: EVENT_RECORD STREAM_WAIT_EVENT
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    float *d = dalloc();
    CHECK(cudaEventRecord(e, s1));
    write_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaEventRecord(e, s1));
    CHECK(cudaStreamWaitEvent(s2, e, 0));
    read_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("event_rerecord_ok: done\n");
    return 0;
}

// event_too_early.cu - BUG: the event is recorded on s1 before the kernel
// that writes, so waiting for it on s2 orders nothing.
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
    CHECK(cudaStreamWaitEvent(s2, e, 0));
    read_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("event_too_early: done\n");
    return 0;
}

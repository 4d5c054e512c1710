// wait_wrong_stream.cu - BUG: the event is waited for on s3, but the read
// runs on s2.
// rule: STREAM_WAIT_EVENT
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaStream_t s3 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    float *d = dalloc();
    write_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaEventRecord(e, s1));
    CHECK(cudaStreamWaitEvent(s3, e, 0));
    read_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("wait_wrong_stream: done\n");
    return 0;
}

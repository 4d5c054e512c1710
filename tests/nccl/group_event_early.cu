// group_event_early.cu - BUG: the event is recorded between the all-reduce
// and ncclGroupEnd, but NCCL issues a group's work at ncclGroupEnd ("Nothing
// will be started on the CUDA stream until ncclGroupEnd"): the event does
// not cover the all-reduce, and the kernel on s2 reads its output too soon.
// rule: COLLECTIVE EVENT_RECORD STREAM_WAIT_EVENT
#include "nccl_test.h"

int main()
{
    ncclComm_t comm = solo_comm();
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    float *src = dalloc(), *dst = dalloc();
    write_k<<<GRID, 0, s1>>>(src, N);
    NCHECK(ncclGroupStart());
    NCHECK(ncclAllReduce(src, dst, N, ncclFloat, ncclSum, comm, s1));
    CHECK(cudaEventRecord(e, s1));
    NCHECK(ncclGroupEnd());
    CHECK(cudaStreamWaitEvent(s2, e, 0));
    read_k<<<GRID, 0, s2>>>(dst, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    NCHECK(ncclCommDestroy(comm));
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    std::printf("group_event_early: done\n");
    return 0;
}

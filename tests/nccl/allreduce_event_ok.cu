// allreduce_event_ok.cu - the correct twin of allreduce_race: s2 waits for
// an event recorded on s1 after the all-reduce (work.wait() in PyTorch).
// Also: NCCL's return codes reach the program unchanged (an invalid
// datatype), and in-place and grouped collectives ordered the same way.
// rule: COLLECTIVE EVENT_RECORD STREAM_WAIT_EVENT
#include "nccl_test.h"

int main()
{
    ncclComm_t comm = solo_comm();
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    float *d = dalloc(), *g = dalloc();
    write_k<<<GRID, 0, s1>>>(d, N);
    NCHECK(ncclAllReduce(d, d, N, ncclFloat, ncclSum, comm, s1));
    NCHECK(ncclGroupStart());
    NCHECK(ncclAllGather(d, g, N, ncclFloat, comm, s1));
    NCHECK(ncclBroadcast(g, g, N, ncclFloat, 0, comm, s1));
    NCHECK(ncclGroupEnd());
    CHECK(cudaEventRecord(e, s1));
    CHECK(cudaStreamWaitEvent(s2, e, 0));
    read_k<<<GRID, 0, s2>>>(d, N);
    read_k<<<GRID, 0, s2>>>(g, N);
    ncclResult_t bad = ncclAllReduce(d, d, N, (ncclDataType_t)99, ncclSum, comm, s1);
    std::printf("invalid datatype: %d\n", (int)bad);
    CHECK(cudaDeviceSynchronize());
    NCHECK(ncclCommDestroy(comm));
    CHECK(cudaFree(d));
    CHECK(cudaFree(g));
    std::printf("allreduce_event_ok: done\n");
    return 0;
}

// allreduce_race.cu - BUG: a kernel on stream s2 reads the buffer an
// all-reduce on stream s1 is still writing (an async collective used before
// waiting for it: PyTorch's async_op=True without work.wait()).
// rule: COLLECTIVE
#include "nccl_test.h"

int main()
{
    ncclComm_t comm = solo_comm();
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = dalloc();
    NCHECK(ncclAllReduce(d, d, N, ncclFloat, ncclSum, comm, s1));
    read_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    NCHECK(ncclCommDestroy(comm));
    CHECK(cudaFree(d));
    std::printf("allreduce_race: done\n");
    return 0;
}

// free_while_sending.cu - BUG: the send buffer of an all-reduce on s1 is
// freed in stream order on s2 (and may be reused) while the collective may
// still read it.
// rule: COLLECTIVE FREE
#include "nccl_test.h"

int main()
{
    ncclComm_t comm = solo_comm();
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *src = dalloc(), *dst = dalloc();
    NCHECK(ncclAllReduce(src, dst, N, ncclFloat, ncclSum, comm, s1));
    CHECK(cudaFreeAsync(src, s2)); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    NCHECK(ncclCommDestroy(comm));
    CHECK(cudaFree(dst));
    std::printf("free_while_sending: done\n");
    return 0;
}

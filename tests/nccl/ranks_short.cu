// ranks_short.cu - BUG: rank 0 makes one more broadcast than rank 1 (with
// real NCCL, rank 0 waits for rank 1 forever).  Run as two processes like
// ranks_mismatch.
// rule: COLLECTIVE
#include "nccl_test.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int rank = env_rank();
    CHECK(cudaSetDevice(0));
    ncclComm_t comm = shared_comm(argv[1], rank, 2);
    cudaStream_t s = nonblocking_stream();
    float *d = dalloc();
    NCHECK(ncclAllReduce(d, d, N, ncclFloat, ncclSum, comm, s));
    if (rank == 0)
        NCHECK(ncclBroadcast(d, d, N, ncclFloat, 0, comm, s)); // expect: collective-mismatch
    CHECK(cudaStreamSynchronize(s));
    NCHECK(ncclCommDestroy(comm));
    CHECK(cudaFree(d));
    std::printf("ranks_short: rank %d done\n", rank);
    return 0;
}

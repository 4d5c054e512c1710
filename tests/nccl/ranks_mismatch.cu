// ranks_mismatch.cu - BUG: at the second all-reduce, rank 1 reduces int32
// where rank 0 reduces float (same bytes, so real NCCL does not even hang:
// the result is garbage).  Run as two processes (RANK=0 and RANK=1,
// argument: the file through which they share the unique id).
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
    if (rank == 1)
        NCHECK(ncclAllReduce(d, d, N, ncclInt32, ncclSum, comm, s)); // expect: collective-mismatch
    else
        NCHECK(ncclAllReduce(d, d, N, ncclFloat, ncclSum, comm, s));
    NCHECK(ncclBroadcast(d, d, N, ncclFloat, 0, comm, s));
    CHECK(cudaStreamSynchronize(s));
    NCHECK(ncclCommDestroy(comm));
    CHECK(cudaFree(d));
    std::printf("ranks_mismatch: rank %d done\n", rank);
    return 0;
}

// ranks_ok.cu - the correct twin of ranks_mismatch: both ranks make the
// same collectives with the same counts and datatypes (rank 1 through
// ncclBcast, rank 0 through ncclBroadcast: the same collective), and
// point-to-point calls in a group.
// rule: COLLECTIVE SYNC_STREAM
#include "nccl_test.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int rank = env_rank();
    CHECK(cudaSetDevice(0));
    ncclComm_t comm = shared_comm(argv[1], rank, 2);
    cudaStream_t s = nonblocking_stream();
    float *d = dalloc(), *g;
    CHECK(cudaMalloc((void **)&g, 2 * N * sizeof(float)));
    NCHECK(ncclAllReduce(d, d, N, ncclFloat, ncclSum, comm, s));
    NCHECK(ncclAllGather(d, g, N, ncclFloat, comm, s));
    NCHECK(ncclGroupStart());
    NCHECK(ncclSend(d, N, ncclFloat, 1 - rank, comm, s));
    NCHECK(ncclRecv(g, N, ncclFloat, 1 - rank, comm, s));
    NCHECK(ncclGroupEnd());
    NCHECK(ncclBroadcast(d, d, N, ncclFloat, 0, comm, s));
    CHECK(cudaStreamSynchronize(s));
    NCHECK(ncclCommDestroy(comm));
    CHECK(cudaFree(d));
    CHECK(cudaFree(g));
    std::printf("ranks_ok: rank %d done\n", rank);
    return 0;
}

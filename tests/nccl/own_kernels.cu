// own_kernels.cu - NCCL's own kernels are NCCL's: collectives of one
// communicator on two streams that do not wait for each other, each on
// buffers of its own, then a group of them.  NCCL launches its kernels with
// their arguments in one buffer (cuLaunchKernelEx's extra): its
// communicator's device memory and a pinned work queue that its host code
// fills while earlier kernels run, from the calling thread or, at a
// group's end, from a thread of its own (nonblocking communicators; the CI's
// NCCL test double does so for every group).  None of that is the program's
// memory, and what the collectives do to the program's memory is modelled
// from their calls (include/cudalens/nccl.def).  Nothing to report; taking
// NCCL's arguments for the program's reports stream races on NCCL's device
// memory and host writes to its work queue under the test double.
// rule: COLLECTIVE
#include "nccl_test.h"

int main()
{
    ncclComm_t comm = solo_comm();
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *a = dalloc(), *b = dalloc(), *ga = dalloc(), *gb = dalloc();
    write_k<<<GRID, 0, s1>>>(a, N);
    write_k<<<GRID, 0, s2>>>(b, N);
    for (int i = 0; i < 4; i++) {
        NCHECK(ncclAllReduce(a, a, N, ncclFloat, ncclSum, comm, s1));
        NCHECK(ncclAllReduce(b, b, N, ncclFloat, ncclSum, comm, s2));
    }
    NCHECK(ncclGroupStart());
    NCHECK(ncclAllGather(a, ga, N, ncclFloat, comm, s1));
    NCHECK(ncclAllGather(b, gb, N, ncclFloat, comm, s2));
    NCHECK(ncclGroupEnd());
    read_k<<<GRID, 0, s1>>>(ga, N);
    read_k<<<GRID, 0, s2>>>(gb, N);
    CHECK(cudaDeviceSynchronize());
    NCHECK(ncclCommDestroy(comm));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(ga));
    CHECK(cudaFree(gb));
    std::printf("own_kernels: done\n");
    return 0;
}

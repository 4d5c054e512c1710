// fp_atomic_ok.cu - CORRECT: the same kernel on two streams that nothing
// orders adds to one counter with atomicAdd, which "is guaranteed to be
// performed without interference from other threads" (CUDA C++ Programming
// Guide, Atomic Functions).  Without footprints the non-const pointer is a
// shared-argument-race warning; the footprint (tests/races/fp_atomic_ok.fp.sql:
// atomic updates only) makes it nothing.
// rule: STREAM_ORDER
#include "races.h"

__global__ void count_k(int *counter, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.0f)
        atomicAdd(counter, 1);
}

int main()
{
    int *counter = nullptr;
    CHECK(cudaMalloc(&counter, sizeof(int)));
    CHECK(cudaMemset(counter, 0, sizeof(int)));
    float *in[2];
    cudaStream_t s[2];
    for (int i = 0; i < 2; i++) {
        s[i] = nonblocking_stream();
        in[i] = dalloc();
        CHECK(cudaMemset(in[i], 0, N * sizeof(float)));
    }
    CHECK(cudaDeviceSynchronize());
    count_k<<<GRID, 0, s[0]>>>(counter, in[0], N);
    count_k<<<GRID, 0, s[1]>>>(counter, in[1], N); // expect: shared-argument-race
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 2; i++)
        CHECK(cudaFree(in[i]));
    CHECK(cudaFree(counter));
    std::printf("fp_atomic_ok: done\n");
    return 0;
}

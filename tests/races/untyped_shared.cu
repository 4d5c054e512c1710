// untyped_shared.cu - two kernels without a C++ signature (extern "C", as
// Triton's and XLA's kernels are) get the same pointer on two streams that
// nothing orders: their parameters' types are unknown, so nothing says
// either writes it (both only read it here).  A warning, not an error.
// rule: NONBLOCKING_STREAM
#include "races.h"

extern "C" __global__ void sum_c(float *p, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = p[i] + 1.0f;
}

extern "C" __global__ void twice_c(float *p, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * p[i];
}

int main()
{
    float *in = dalloc(), *a = dalloc(), *b = dalloc();
    CHECK(cudaDeviceSynchronize());
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    sum_c<<<GRID, 0, s1>>>(in, a, N);
    twice_c<<<GRID, 0, s2>>>(in, b, N); // expect: shared-argument-race
    CHECK(cudaDeviceSynchronize());
    std::printf("untyped_shared: done\n");
    return 0;
}

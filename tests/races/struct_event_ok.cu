// struct_event_ok.cu - CORRECT twin of struct_ptr: an event orders the two
// kernels.
// rule: STREAM_WAIT_EVENT
#include "races.h"

struct Pair {
    float *out;
    const float *in;
};

__global__ void copy_pair(Pair p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p.out[i] = p.in[i];
}

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    float *a = dalloc(), *b = dalloc(), *c = dalloc();
    CHECK(cudaMemset(a, 0, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    copy_pair<<<GRID, 0, s1>>>(Pair{ b, a }, N);
    CHECK(cudaEventRecord(e, s1));
    CHECK(cudaStreamWaitEvent(s2, e, 0));
    copy_pair<<<GRID, 0, s2>>>(Pair{ c, b }, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    std::printf("struct_event_ok: done\n");
    return 0;
}

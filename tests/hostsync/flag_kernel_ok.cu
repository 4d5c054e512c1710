// flag_kernel_ok.cu - a kernel spins on a one-int pinned flag until the host
// sets it (the protocol of NVIDIA's p2pBandwidthLatencyTest, whose delay
// kernel holds a stream until the work is queued, and of XLA's
// GpuSemaphore).  The host writes the flag while the kernel runs, on
// purpose: host and device share mapped pinned memory, and cudalens cannot
// see that the accesses are volatile.  No finding.
// rule: SYNC_STREAM
#include "common.h"

__global__ void wait_flag(volatile int *flag, float *out)
{
    while (*flag == 0)
        ;
    out[0] = 1.0f;
}

int main()
{
    int *flag;
    float *d;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaHostAlloc(&flag, sizeof *flag, cudaHostAllocPortable));
    CHECK(cudaMalloc(&d, sizeof(float)));
    *flag = 0;
    wait_flag<<<1, 1, 0, s>>>(flag, d);
    CHECK(cudaGetLastError());
    *(volatile int *)flag = 1; // releases the kernel
    CHECK(cudaStreamSynchronize(s));
    float h = 0;
    CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    std::printf("flag_kernel_ok: done\n");
    CHECK(cudaFreeHost(flag));
    CHECK(cudaFree(d));
    return 0;
}

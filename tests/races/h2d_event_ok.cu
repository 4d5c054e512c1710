// h2d_event_ok.cu - CORRECT twin of h2d_kernel: the kernel's stream waits
// for an event recorded after the copy.
// rule: ASYNC_OTHER STREAM_WAIT_EVENT
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t copied;
    CHECK(cudaEventCreate(&copied));
    float *h = nullptr;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    float *d = dalloc();
    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s1));
    CHECK(cudaEventRecord(copied, s1));
    CHECK(cudaStreamWaitEvent(s2, copied, 0));
    read_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    std::printf("h2d_event_ok: done\n");
    return 0;
}

// mapped_sync.cu - CORRECT twin of mapped_read.cu: the host touches the
// mapped memory only after the kernel's stream is synchronized, and
// rewrites a kernel's input only after an event recorded after it.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: SYNC_STREAM SYNC_EVENT
#include "common.h"

int main()
{
    float *h, *d, *y;
    cudaStream_t s;
    cudaEvent_t done;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaHostAlloc(&h, N * sizeof(float), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void **)&d, h, 0));
    CHECK(cudaMalloc(&y, N * sizeof(float)));
    fill<<<(N + 255) / 256, 256, 0, s>>>(d, 8.0f, N);
    CHECK(cudaStreamSynchronize(s));
    double sum = checksum(h, N);
    scale<<<(N + 255) / 256, 256, 0, s>>>(y, d, N);
    CHECK(cudaEventRecord(done, s));
    CHECK(cudaEventSynchronize(done));
    h[N / 2] = 1.0f;
    std::printf("mapped_sync: %g\n", sum);
    CHECK(cudaFree(y));
    CHECK(cudaFreeHost(h));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

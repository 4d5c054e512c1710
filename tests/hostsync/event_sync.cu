// event_sync.cu - CORRECT: an event recorded after the copy is synchronized
// before the host reads; then the source is rewritten only after the
// host-to-device copy's event completed.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: SYNC_EVENT
#include "common.h"

int main()
{
    float *d, *h;
    cudaStream_t s;
    cudaEvent_t done;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill<<<(N + 255) / 256, 256, 0, s>>>(d, 3.0f, N);
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaEventRecord(done, s));
    CHECK(cudaEventSynchronize(done));
    double sum = checksum(h, N);
    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaEventRecord(done, s));
    CHECK(cudaEventSynchronize(done));
    h[0] = 42.0f;
    std::printf("event_sync: %g\n", sum);
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

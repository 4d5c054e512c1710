// double_buffer.cu - CORRECT: a pipeline with a separate pinned buffer per
// step; each buffer is read only after its own event completed, and freed
// after a device synchronization.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: SYNC_EVENT SYNC_DEVICE
#include "common.h"

int main()
{
    float *d, *h[2];
    cudaStream_t s;
    cudaEvent_t ev[2];
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    for (int b = 0; b < 2; b++) {
        CHECK(cudaMallocHost(&h[b], N * sizeof(float)));
        CHECK(cudaEventCreate(&ev[b]));
    }
    double sum = 0;
    for (int step = 0; step < 6; step++) {
        int b = step % 2;
        fill<<<(N + 255) / 256, 256, 0, s>>>(d, (float)step, N);
        CHECK(cudaMemcpyAsync(h[b], d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
        CHECK(cudaEventRecord(ev[b], s));
        if (step > 0) { // consume the previous step's buffer
            CHECK(cudaEventSynchronize(ev[1 - b]));
            sum += checksum(h[1 - b], N);
        }
    }
    CHECK(cudaDeviceSynchronize());
    sum += checksum(h[1], N);
    std::printf("double_buffer: %g\n", sum);
    for (int b = 0; b < 2; b++)
        CHECK(cudaFreeHost(h[b]));
    CHECK(cudaFree(d));
    return 0;
}

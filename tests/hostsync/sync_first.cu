// sync_first.cu - CORRECT twin of read_before_sync: the stream is
// synchronized before the host reads the copy's destination.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: SYNC_STREAM
#include "common.h"

int main()
{
    float *d, *h;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill<<<(N + 255) / 256, 256, 0, s>>>(d, 1.0f, N);
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    std::printf("sync_first: %g\n", checksum(h, N));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

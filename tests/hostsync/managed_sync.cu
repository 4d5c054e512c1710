// managed_sync.cu - CORRECT twin of managed_read.cu: the host reads the
// kernel's output only after cudaStreamSynchronize of its stream.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: SYNC_STREAM
#include "common.h"

int main()
{
    float *m;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocManaged(&m, N * sizeof(float)));
    fill<<<(N + 255) / 256, 256, 0, s>>>(m, 1.0f, N);
    CHECK(cudaStreamSynchronize(s));
    touch_read(&m[N / 2]);
    std::printf("managed_sync: %g\n", checksum(m, N));
    CHECK(cudaFree(m));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

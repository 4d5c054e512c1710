// managed_read.cu - BUG: a kernel writes managed memory and the host reads
// it before synchronizing with the kernel (the classic unified-memory race;
// with concurrentManagedAccess the read simply sees a stale or torn value).
// rule: SYNC_STREAM
#include "common.h"

int main()
{
    float *m;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocManaged(&m, N * sizeof(float)));
    fill<<<(N + 255) / 256, 256, 0, s>>>(m, 1.0f, N);
    touch_read(&m[N / 2]); // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    std::printf("managed_read: %g\n", checksum(m, N));
    CHECK(cudaFree(m));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

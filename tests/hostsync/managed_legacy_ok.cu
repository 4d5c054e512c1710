// managed_legacy_ok.cu - CORRECT twin of managed_legacy.cu: the kernel's
// stream is a blocking one, which the legacy default stream waits for, so
// the blocking cudaMemcpy returns after the kernel finished.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: LEGACY_STREAM
#include "common.h"

int main()
{
    float *m, *d, h[4];
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocManaged(&m, N * sizeof(float)));
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMemset(d, 0, sizeof h));
    fill<<<(N + 255) / 256, 256, 0, s>>>(m, 1.0f, N);
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    touch_read(&m[N / 2]);
    std::printf("managed_legacy_ok: %g %g\n", checksum(m, N), h[0]);
    CHECK(cudaFree(d));
    CHECK(cudaFree(m));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

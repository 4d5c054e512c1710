// managed_device_sync.cu - CORRECT: kernels on two streams write managed
// memory; cudaDeviceSynchronize covers both before the host reads.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: SYNC_DEVICE
#include "common.h"

int main()
{
    float *a, *b;
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaMallocManaged(&a, N * sizeof(float)));
    CHECK(cudaMallocManaged(&b, N * sizeof(float)));
    fill<<<(N + 255) / 256, 256, 0, s1>>>(a, 5.0f, N);
    fill<<<(N + 255) / 256, 256, 0, s2>>>(b, 6.0f, N);
    CHECK(cudaDeviceSynchronize());
    std::printf("managed_device_sync: %g\n", checksum(a, N) + checksum(b, N));
    a[N / 2] = b[N / 2];
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    return 0;
}

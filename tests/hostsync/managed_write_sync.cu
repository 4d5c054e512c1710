// managed_write_sync.cu - CORRECT twin of managed_write.cu: the host
// rewrites the kernel's input after cudaStreamSynchronize.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: SYNC_STREAM
#include "common.h"

int main()
{
    float *x, *y;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMallocManaged(&x, N * sizeof(float)));
    CHECK(cudaMalloc(&y, N * sizeof(float)));
    for (size_t i = 0; i < N; i++)
        x[i] = (float)(i % 5);
    scale<<<(N + 255) / 256, 256, 0, s>>>(y, x, N);
    touch_read(&x[N / 2]);
    CHECK(cudaStreamSynchronize(s));
    touch_write(&x[N / 2]);
    x[N / 2 + 1] = 3.0f;
    float *h = (float *)std::malloc(N * sizeof(float));
    CHECK(cudaMemcpy(h, y, N * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("managed_write_sync: %g\n", checksum(h, N));
    std::free(h);
    CHECK(cudaFree(y));
    CHECK(cudaFree(x));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

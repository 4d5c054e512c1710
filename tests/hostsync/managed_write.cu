// managed_write.cu - BUG: the host writes managed memory that a running
// kernel reads (through a pointer to const: reading it from the host is
// fine, writing is not).
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
    touch_read(&x[N / 2]);   // a read: the kernel only reads x too
    touch_write(&x[N / 2]);  // expect: host-write-before-sync
    CHECK(cudaStreamSynchronize(s));
    float *h = (float *)std::malloc(N * sizeof(float));
    CHECK(cudaMemcpy(h, y, N * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("managed_write: %g\n", checksum(h, N));
    std::free(h);
    CHECK(cudaFree(y));
    CHECK(cudaFree(x));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

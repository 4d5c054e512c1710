// read_before_sync.cu - BUG: the host reads the pinned destination of an
// async device-to-host copy before synchronizing (PyTorch's
// cuda_t.to("cpu", non_blocking=True).mean()).
// rule: ASYNC_OTHER
#include "common.h"

int main()
{
    float *d, *h;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMemset(d, 0, N * sizeof(float)));
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    float first = h[0]; // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    double sum = checksum(h, N) + first;
    std::printf("read_before_sync: %g\n", sum);
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

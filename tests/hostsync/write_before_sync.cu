// write_before_sync.cu - BUG: the host overwrites the pinned source of an
// async host-to-device copy while the copy may still be reading it.
// rule: ASYNC_OTHER
#include "common.h"
#include <cstring>

int main()
{
    float *d, *h;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    for (size_t i = 0; i < N; i++)
        h[i] = 1.0f;
    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    std::memset(h, 0, N * sizeof(float)); // expect: host-write-before-sync
    CHECK(cudaStreamSynchronize(s));
    std::printf("write_before_sync: %g\n", checksum(h, N));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

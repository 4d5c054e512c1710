// query_loop.cu - CORRECT: the host polls cudaStreamQuery until it returns
// cudaSuccess before reading.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: QUERY_STREAM
#include "common.h"

int main()
{
    float *d, *h;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill<<<(N + 255) / 256, 256, 0, s>>>(d, 4.0f, N);
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    cudaError_t e;
    while ((e = cudaStreamQuery(s)) == cudaErrorNotReady)
        ;
    CHECK(e);
    std::printf("query_loop: %g\n", checksum(h, N));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

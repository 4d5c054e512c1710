// managed_query.cu - CORRECT: the host polls cudaStreamQuery until it
// returns cudaSuccess, and only then reads the kernel's managed output.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: QUERY_STREAM
#include "common.h"

int main()
{
    float *m;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocManaged(&m, N * sizeof(float)));
    fill<<<(N + 255) / 256, 256, 0, s>>>(m, 7.0f, N);
    cudaError_t e;
    while ((e = cudaStreamQuery(s)) == cudaErrorNotReady)
        ;
    CHECK(e);
    std::printf("managed_query: %g\n", checksum(m, N));
    CHECK(cudaFree(m));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

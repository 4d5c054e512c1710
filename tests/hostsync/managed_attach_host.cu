// managed_attach_host.cu - CORRECT: managed memory attached to the host
// (cudaStreamAttachMemAsync(..., cudaMemAttachHost), or allocated with
// cudaMemAttachHost) belongs to the host: a kernel given a pointer into it
// (which does not touch it: n = 0) does not make host accesses races.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: SYNC_STREAM
#include "common.h"

int main()
{
    float *a, *b, *out;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocManaged(&a, N * sizeof(float)));
    CHECK(cudaMallocManaged(&b, N * sizeof(float), cudaMemAttachHost));
    CHECK(cudaMallocManaged(&out, N * sizeof(float)));
    CHECK(cudaStreamAttachMemAsync(s, a, 0, cudaMemAttachHost));
    CHECK(cudaStreamSynchronize(s));
    fill<<<(N + 255) / 256, 256, 0, s>>>(out, 2.0f, N);
    fill<<<1, 32, 0, s>>>(a, 1.0f, 0);
    fill<<<1, 32, 0, s>>>(b, 1.0f, 0);
    for (size_t i = 0; i < N; i++)
        a[i] = b[i] = (float)(i % 3);
    CHECK(cudaStreamSynchronize(s));
    std::printf("managed_attach_host: %g\n",
                checksum(a, N) + checksum(b, N) + checksum(out, N));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(out));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

// managed_legacy.cu - BUG: a kernel on a non-blocking stream writes managed
// memory; a blocking cudaMemcpy on the legacy default stream does not wait
// for a non-blocking stream, so the host's read after it still races.
// rule: NONBLOCKING_STREAM
#include "common.h"

int main()
{
    float *m, *d, h[4];
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMallocManaged(&m, N * sizeof(float)));
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMemset(d, 0, sizeof h));
    fill<<<(N + 255) / 256, 256, 0, s>>>(m, 1.0f, N);
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    touch_read(&m[N / 2]); // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    std::printf("managed_legacy: %g %g\n", checksum(m, N), h[0]);
    CHECK(cudaFree(d));
    CHECK(cudaFree(m));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

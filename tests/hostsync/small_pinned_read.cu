// small_pinned_read.cu - BUG: a 16-byte result is copied into pinned memory
// with an async device-to-host copy, and the host reads it before
// synchronizing with the copy.
// rule: ASYNC_OTHER
#include "common.h"

int main()
{
    float *d, *r;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, 4 * sizeof(float)));
    CHECK(cudaMallocHost(&r, 4 * sizeof(float)));
    CHECK(cudaMemset(d, 0, 4 * sizeof(float)));
    CHECK(cudaMemcpyAsync(r, d, 4 * sizeof(float), cudaMemcpyDeviceToHost, s));
    touch_read(&r[1]); // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    std::printf("small_pinned_read: %g\n", r[0] + r[1] + r[2] + r[3]);
    CHECK(cudaFreeHost(r));
    CHECK(cudaFree(d));
    return 0;
}

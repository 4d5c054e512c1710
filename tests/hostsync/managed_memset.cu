// managed_memset.cu - BUG: the host reads managed memory while an async
// memset of it, then an async device-to-device copy into it, is in flight.
// rule: MEMSET_ASYNC ASYNC_OTHER
#include "common.h"

int main()
{
    float *m, *d;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocManaged(&m, N * sizeof(float)));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMemsetAsync(d, 0, N * sizeof(float), s));
    CHECK(cudaMemsetAsync(m, 0, N * sizeof(float), s));
    touch_read(&m[N / 3]); // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpyAsync(m, d, N * sizeof(float), cudaMemcpyDeviceToDevice, s));
    touch_read(&m[N / 4]); // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    std::printf("managed_memset: %g\n", checksum(m, N));
    CHECK(cudaFree(d));
    CHECK(cudaFree(m));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

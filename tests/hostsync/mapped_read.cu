// mapped_read.cu - BUG: zero-copy memory.  A kernel writes mapped pinned
// memory through its device pointer (cudaHostGetDevicePointer) and the host
// reads it through the host pointer before synchronizing; the same with
// malloc'd memory registered with cudaHostRegisterMapped.
// rule: SYNC_STREAM
#include "common.h"
#include <cstring>

int main()
{
    float *h, *d, *r, *rd;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaHostAlloc(&h, N * sizeof(float), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void **)&d, h, 0));
    fill<<<(N + 255) / 256, 256, 0, s>>>(d, 8.0f, N);
    touch_read(&h[N - 1]); // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    double sum = checksum(h, N);

    if (posix_memalign((void **)&r, 4096, N * sizeof(float)))
        return 1;
    std::memset(r, 0, N * sizeof(float));
    CHECK(cudaHostRegister(r, N * sizeof(float), cudaHostRegisterMapped));
    CHECK(cudaHostGetDevicePointer((void **)&rd, r, 0));
    fill<<<(N + 255) / 256, 256, 0, s>>>(rd, 9.0f, N);
    touch_read(&r[3]); // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    sum += checksum(r, N);
    std::printf("mapped_read: %g\n", sum);
    CHECK(cudaHostUnregister(r));
    std::free(r);
    CHECK(cudaFreeHost(h));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

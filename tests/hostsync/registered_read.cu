// registered_read.cu - BUG: the same as read_before_sync, with malloc'd
// memory pinned by cudaHostRegister, read from a second thread.
// rule: ASYNC_OTHER
#include "common.h"
#include <pthread.h>

static float *h;
static double sum;

static void *reader(void *)
{
    sum = h[N / 2]; // expect: host-read-before-sync
    return nullptr;
}

int main()
{
    float *d;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    if (posix_memalign((void **)&h, 4096, N * sizeof(float)))
        return 1;
    CHECK(cudaHostRegister(h, N * sizeof(float), cudaHostRegisterDefault));
    fill<<<(N + 255) / 256, 256, 0, s>>>(d, 2.0f, N);
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    pthread_t t;
    pthread_create(&t, nullptr, reader, nullptr);
    pthread_join(t, nullptr);
    CHECK(cudaStreamSynchronize(s));
    std::printf("registered_read: done\n");
    CHECK(cudaHostUnregister(h));
    std::free(h);
    CHECK(cudaFree(d));
    return 0;
}

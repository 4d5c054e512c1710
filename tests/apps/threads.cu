// threads.cu - sample app: two pthreads, each with its own stream, doing
// copies and kernels concurrently.
#include "common.h"
#include <pthread.h>

__global__ void inc(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1;
}

struct Job {
    int id;
    int result;
};

static void *work(void *arg)
{
    Job *job = (Job *)arg;
    const int n = 2048;
    static __thread int h[2048];
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int *d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    for (int i = 0; i < n; i++)
        h[i] = job->id;
    for (int round = 0; round < 3; round++) {
        CHECK(cudaMemcpyAsync(d, h, n * sizeof(int), cudaMemcpyHostToDevice, s));
        inc<<<n / 256, 256, 0, s>>>(d, n);
        CHECK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
    }
    job->result = h[0];
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    return nullptr;
}

int main()
{
    pthread_t t[2];
    Job jobs[2] = { { 100, 0 }, { 200, 0 } };
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], nullptr, work, &jobs[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], nullptr);
    std::printf("threads: ok (%d, %d)\n", jobs[0].result, jobs[1].result);
    return 0;
}

// streams.cu - sample app: a blocking stream and a non-blocking stream with
// a priority, kernels on both, events recorded / waited on / synchronized /
// queried, cudaStreamSynchronize, cudaStreamQuery, stream destroy.
#include "common.h"

__global__ void fill(int *x, int v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = v;
}

__global__ void scale(int *x, int k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= k;
}

int main()
{
    const int n = 4096;
    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamDefault));
    CHECK(cudaStreamCreateWithPriority(&b, cudaStreamNonBlocking, greatest));
    int *d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    cudaEvent_t filled, done, t0, t1;
    CHECK(cudaEventCreate(&filled));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));

    CHECK(cudaEventRecord(t0, a));
    fill<<<n / 256, 256, 0, a>>>(d, 3, n);
    CHECK(cudaEventRecord(filled, a));
    CHECK(cudaStreamWaitEvent(b, filled, 0));
    scale<<<n / 256, 256, 0, b>>>(d, 2, n);
    CHECK(cudaEventRecord(done, b));
    CHECK(cudaEventRecord(t1, b));
    CHECK(cudaEventSynchronize(done));
    cudaError_t q;
    while ((q = cudaEventQuery(t1)) == cudaErrorNotReady)
        ;
    CHECK(q);
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    CHECK(cudaStreamSynchronize(b));
    while ((q = cudaStreamQuery(a)) == cudaErrorNotReady)
        ;
    CHECK(q);

    int h[4] = { 0, 0, 0, 0 };
    CHECK(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, b));
    CHECK(cudaStreamSynchronize(b));
    CHECK(cudaEventDestroy(filled));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaEventDestroy(t0));
    CHECK(cudaEventDestroy(t1));
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    CHECK(cudaFree(d));
    EXPECT(ms >= 0.0f);
    std::printf("streams: ok (h[0]=%d, %.3f ms)\n", h[0], ms);
    return 0;
}

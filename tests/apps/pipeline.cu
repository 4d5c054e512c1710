// pipeline.cu - the demo app of the README's Quick start: a small training-
// style loop with four classic mistakes that cudalens reports, each at its
// line:
//  - the input batch is copied with cudaMemcpyAsync from pageable memory,
//    which is staged and not asynchronous (pageable-async-copy);
//  - a pinned staging buffer is allocated and freed in every step
//    (repeated-pinning);
//  - a second stream reads the result without waiting for the first
//    (stream-race);
//  - the host reads the pinned copy of the result before synchronizing
//    (host-read-before-sync).
#include "common.h"
#include <cstring>

__global__ void scale(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i];
}

__global__ void sum_into(float *acc, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        acc[i] += y[i];
}

int main()
{
    const int n = 1 << 20, steps = 12;
    const size_t bytes = n * sizeof(float);
    cudaStream_t compute, side;
    CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    float *x, *y, *acc;
    CHECK(cudaMalloc(&x, bytes));
    CHECK(cudaMalloc(&y, bytes));
    CHECK(cudaMalloc(&acc, bytes));
    CHECK(cudaMemset(acc, 0, bytes));
    CHECK(cudaDeviceSynchronize());
    float *batch = (float *)std::malloc(bytes); // pageable
    double total = 0;
    for (int step = 0; step < steps; step++) {
        for (int i = 0; i < n; i++)
            batch[i] = (float)(i % 10);
        CHECK(cudaMemcpyAsync(x, batch, bytes, cudaMemcpyHostToDevice, compute));
        scale<<<(n + 255) / 256, 256, 0, compute>>>(y, x, 0.5f, n);
        sum_into<<<(n + 255) / 256, 256, 0, side>>>(acc, y, n);
        float *out;
        CHECK(cudaMallocHost(&out, bytes));
        CHECK(cudaMemcpyAsync(out, y, bytes, cudaMemcpyDeviceToHost, compute));
        total += out[n - 1];
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaFreeHost(out));
    }
    std::printf("pipeline: %d steps done\n", steps);
    (void)total;
    std::free(batch);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(acc));
    return 0;
}

// races.h - kernels and helpers shared by the race catalogue (tests/races):
// small CUDA programs, each with a synchronization bug between streams
// (marked `// expect: stream-race` or `// expect: masked-race` on the line
// cudalens must report) or a correct twin (no mark).  They run on a real
// GPU and under the simulated CUDA of tests/sim.
#pragma once
#include "common.h"

#define N (1 << 16)

__global__ void write_k(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = (float)i;
}

__global__ void read_k(const float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && p[i] == -12345.0f)
        printf("impossible\n");
}

__global__ void add_k(float *dst, const float *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] += src[i];
}

static inline cudaStream_t nonblocking_stream()
{
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
}

static inline float *dalloc()
{
    float *p = nullptr;
    CHECK(cudaMalloc(&p, N * sizeof(float)));
    return p;
}

#define GRID (N / 256), 256

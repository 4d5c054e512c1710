// spin.h - kernels shared by the tests/transfers sample apps: a small
// elementwise kernel, and one that keeps the GPU busy for a given time
// (on the simulated CUDA of tests/sim every kernel takes 2 us).
#pragma once
#include "common.h"

__global__ void scale(float *x, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

// busy-waits for about `ns` nanoseconds of GPU time (one thread is enough)
__global__ void spin(long long ns)
{
    long long start = clock64();
    // clock64 counts SM cycles; at ~1.5-2 GHz 2 cycles per ns is close
    while (clock64() - start < ns * 2)
        ;
}

static inline int blocks_for(int n) { return (n + 255) / 256; }

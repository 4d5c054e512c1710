// common.h - helpers for the host/device synchronization samples (plain
// CUDA programs; each prints a checksum so that runs with and without
// cudalens can be compared).
#pragma once
#include "../apps/common.h" // CHECK


static const size_t N = 1 << 20; // 4 MiB of floats: many whole pages

__global__ void fill(float *x, float v, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = v + (float)(i % 7);
}

static double checksum(const float *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i += 4096)
        s += x[i];
    return s;
}

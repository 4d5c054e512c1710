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

// y = 2 x: reads x through a pointer to const (the managed and mapped
// samples: the host check protects x read-only while it runs)
__global__ void scale(float *y, const float *x, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 2.0f * x[i];
}

// a racy host access whose value must not change what the program prints
// (the device may or may not have written it yet); macros, so that the
// access is at the sample's own line
#define touch_read(p)                                                          \
    do {                                                                       \
        volatile float sink_ = *(const volatile float *)(p);                   \
        (void)sink_;                                                           \
    } while (0)
// reads, then writes back the same value
#define touch_write(p)                                                         \
    do {                                                                       \
        volatile float *v_ = (p);                                              \
        *v_ = *v_;                                                             \
    } while (0)

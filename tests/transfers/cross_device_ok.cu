// cross_device_ok.cu - the fixed twin of cross_device.cu: device 1 enables
// peer access to device 0 before its kernel reads device 0's memory; where
// the devices cannot reach each other, the data is copied to device 1
// first (cudaMemcpyPeer).  No finding expected.  Needs 2 devices.
#include "spin.h"

__global__ void add(float *dst, const float *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] += src[i];
}

int main()
{
    const int n = 1 << 16;
    int count = 0, can = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 2) {
        std::printf("cross_device_ok: SKIP: needs 2 devices, found %d\n", count);
        return 77;
    }
    float *a0 = nullptr, *a1 = nullptr, *copy = nullptr;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&a0, n * sizeof(float)));
    CHECK(cudaMemset(a0, 0, n * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&a1, n * sizeof(float)));
    CHECK(cudaMemset(a1, 0, n * sizeof(float)));
    CHECK(cudaDeviceCanAccessPeer(&can, 1, 0));
    const float *src = a0;
    if (can) {
        CHECK(cudaDeviceEnablePeerAccess(0, 0));
    } else {
        CHECK(cudaMalloc(&copy, n * sizeof(float)));
        CHECK(cudaMemcpyPeer(copy, 1, a0, 0, n * sizeof(float)));
        src = copy;
    }
    add<<<blocks_for(n), 256>>>(a1, src, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    if (copy)
        CHECK(cudaFree(copy));
    CHECK(cudaFree(a1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(a0));
    std::printf("cross_device_ok: ok (peer access %s)\n", can ? "on" : "off, copied");
    return 0;
}

// cross_device.cu - BUGGY sample for `cross-device-access`: a kernel on
// device 1 reads memory allocated on device 0 without peer access enabled.
// On a real GPU that faults (an illegal address); `--safe` launches the
// same kernel with n = 0, so it records the launch without touching the
// memory.  Needs 2 devices (exits 77 otherwise).  Twin: cross_device_ok.cu.
#include "spin.h"
#include <cstring>

__global__ void add(float *dst, const float *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] += src[i];
}

int main(int argc, char **argv)
{
    const int n = 1 << 16;
    int count = 0, touch = !(argc > 1 && std::strcmp(argv[1], "--safe") == 0);
    CHECK(cudaGetDeviceCount(&count));
    if (count < 2) {
        std::printf("cross_device: SKIP: needs 2 devices, found %d\n", count);
        return 77;
    }
    float *a0 = nullptr, *a1 = nullptr;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&a0, n * sizeof(float)));
    CHECK(cudaMemset(a0, 0, n * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&a1, n * sizeof(float)));
    CHECK(cudaMemset(a1, 0, n * sizeof(float)));
    add<<<blocks_for(n), 256>>>(a1, a0, touch ? n : 0); // expect: cross-device-access
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(a1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(a0));
    std::printf("cross_device: ok\n");
    return 0;
}

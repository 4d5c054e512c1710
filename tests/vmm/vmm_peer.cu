// vmm_peer.cu - BUG: memory of device 0 mapped with cuMemMap, to which only
// device 0 was given access (cuMemSetAccess), read by a kernel on device 1.
// Peer access is enabled, but mapped memory does not follow it.
#include "vmm.h"

int main()
{
    if (device_count() < 2) {
        std::printf("vmm_peer: needs 2 devices\n");
        return 0;
    }
    CHECK(cudaSetDevice(1));
    CHECK(cudaDeviceEnablePeerAccess(0, 0));
    CHECK(cudaSetDevice(0));
    size_t g = granularity(0);
    CUdeviceptr va = reserve(g);
    map_at(va, g, 0);
    grant(va, g, 0);
    float *d = (float *)va;
    write_k<<<GRID, 0>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(1));
    read_k<<<GRID, 0>>>(d, N); // expect: cross-device-access
    // on a GPU the read faults, and the context is lost: no cleanup
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("vmm_peer: done (%s)\n", cudaGetErrorString(e));
    return 0;
}

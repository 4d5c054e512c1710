// vmm_peer.cu - BUG: memory of device 0 mapped with cuMemMap and read by a
// kernel on device 1.  The first mapping gave device 1 access
// (cuMemSetAccess) and is read correctly; after cuMemUnmap the range is
// mapped anew and only device 0 is given access, as if the old rights had
// stayed with the address: "all mappings start with no accessibility
// setup".  Peer access is enabled, but mapped memory does not follow it.
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
    CUdeviceptr va = reserve(2 * g);
    map_at(va, 2 * g, 0);
    grant(va, 2 * g, 0);
    grant(va, 2 * g, 1);
    float *d = (float *)(va + g);
    write_k<<<GRID, 0>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(1));
    read_k<<<GRID, 0>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(0));
    CU(cuMemUnmap(va, 2 * g));
    map_at(va, 2 * g, 0);
    grant(va, 2 * g, 0);
    write_k<<<GRID, 0>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(1));
    read_k<<<GRID, 0>>>(d, N); // expect: cross-device-access
    // on a GPU the read faults, and the context is lost: no cleanup
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("vmm_peer: done (%s)\n", cudaGetErrorString(e));
    return 0;
}

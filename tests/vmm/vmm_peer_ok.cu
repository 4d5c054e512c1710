// vmm_peer_ok.cu - correct twin of vmm_peer.cu: a range grown by two
// mappings of device 0's memory, and one cuMemSetAccess over both (as
// PyTorch's expandable segments grant them) gives device 1 access; a
// kernel on device 1 reads the second mapping (no peer access needed).
// After an unmap, the new mapping is granted to device 1 again.
#include "vmm.h"

int main()
{
    if (device_count() < 2) {
        std::printf("vmm_peer_ok: needs 2 devices\n");
        return 0;
    }
    CHECK(cudaSetDevice(0));
    size_t g = granularity(0);
    CUdeviceptr va = reserve(2 * g);
    map_at(va, g, 0);
    map_at(va + g, g, 0);
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
    grant(va, 2 * g, 1);
    write_k<<<GRID, 0>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(1));
    read_k<<<GRID, 0>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(0));
    CU(cuMemUnmap(va, 2 * g));
    CU(cuMemAddressFree(va, 2 * g));
    std::printf("vmm_peer_ok: done\n");
    return 0;
}

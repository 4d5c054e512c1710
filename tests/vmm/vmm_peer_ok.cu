// vmm_peer_ok.cu - correct twin of vmm_peer.cu: cuMemSetAccess gives both
// devices access to the mapping of device 0's memory, which a kernel on
// device 1 then reads (no peer access needed).
#include "vmm.h"

int main()
{
    if (device_count() < 2) {
        std::printf("vmm_peer_ok: needs 2 devices\n");
        return 0;
    }
    CHECK(cudaSetDevice(0));
    size_t g = granularity(0);
    CUdeviceptr va = reserve(g);
    map_at(va, g, 0);
    grant(va, g, 0);
    grant(va, g, 1);
    float *d = (float *)va;
    write_k<<<GRID, 0>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(1));
    read_k<<<GRID, 0>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(0));
    CU(cuMemUnmap(va, g));
    CU(cuMemAddressFree(va, g));
    std::printf("vmm_peer_ok: done\n");
    return 0;
}

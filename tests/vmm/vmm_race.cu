// vmm_race.cu - BUG: a buffer mapped with cuMemCreate/cuMemMap (as PyTorch's
// expandable segments map their memory) is written by a kernel on one
// stream and read by a kernel on another, with nothing ordering the two.
#include "vmm.h"

int main()
{
    CHECK(cudaSetDevice(0));
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    size_t g = granularity(0);
    CUdeviceptr va = reserve(g);
    map_at(va, g, 0);
    grant(va, g, 0);
    float *d = (float *)va;
    write_k<<<GRID, 0, s1>>>(d, N);
    read_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CU(cuMemUnmap(va, g));
    CU(cuMemAddressFree(va, g));
    std::printf("vmm_race: done\n");
    return 0;
}

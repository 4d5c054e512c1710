// vmm_race_ok.cu - correct twin of vmm_race.cu: an event recorded after the
// write and waited for by the reading stream orders the two kernels on the
// mapped buffer.
#include "vmm.h"

int main()
{
    CHECK(cudaSetDevice(0));
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t written;
    CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
    size_t g = granularity(0);
    CUdeviceptr va = reserve(g);
    map_at(va, g, 0);
    grant(va, g, 0);
    float *d = (float *)va;
    write_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaEventRecord(written, s1));
    CHECK(cudaStreamWaitEvent(s2, written, 0));
    read_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CU(cuMemUnmap(va, g));
    CU(cuMemAddressFree(va, g));
    std::printf("vmm_race_ok: done\n");
    return 0;
}

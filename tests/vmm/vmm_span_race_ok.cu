// vmm_span_race_ok.cu - correct twin of vmm_span_race.cu: the reading stream
// waits for an event recorded after the clear of the buffer that spans the
// two mappings.
#include "vmm.h"

int main()
{
    CHECK(cudaSetDevice(0));
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t cleared;
    CHECK(cudaEventCreateWithFlags(&cleared, cudaEventDisableTiming));
    size_t g = granularity(0);
    CUdeviceptr va = reserve(4 * g);
    map_at(va, g, 0);
    grant(va, g, 0);
    map_at(va + g, g, 0);
    grant(va + g, g, 0);
    char *buf = (char *)va + g / 2;
    CHECK(cudaMemsetAsync(buf, 0, g, s1));
    CHECK(cudaEventRecord(cleared, s1));
    CHECK(cudaStreamWaitEvent(s2, cleared, 0));
    float *tail = (float *)(buf + g - N * sizeof(float));
    read_k<<<GRID, 0, s2>>>(tail, N);
    CHECK(cudaDeviceSynchronize());
    CU(cuMemUnmap(va, 2 * g));
    CU(cuMemAddressFree(va, 4 * g));
    std::printf("vmm_span_race_ok: done\n");
    return 0;
}

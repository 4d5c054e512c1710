// vmm_span_race.cu - BUG: one reserved range grows by two mappings of
// separate physical memory (as PyTorch's expandable segments grow, 2 MiB at
// a time); a buffer placed across the seam is cleared on one stream while a
// kernel on another stream reads its second half, in the second mapping.
// Unmapping the range, mapping it anew and using it again is correct: every
// operation before the unmap has finished when cuMemUnmap returns.
#include "vmm.h"

int main()
{
    CHECK(cudaSetDevice(0));
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    size_t g = granularity(0);
    CUdeviceptr va = reserve(4 * g);
    map_at(va, g, 0);
    grant(va, g, 0);
    map_at(va + g, g, 0); // the range grows
    grant(va + g, g, 0);
    // a buffer of g bytes from the middle of the first mapping
    char *buf = (char *)va + g / 2;
    CHECK(cudaMemsetAsync(buf, 0, g, s1));
    float *tail = (float *)(buf + g - N * sizeof(float));
    read_k<<<GRID, 0, s2>>>(tail, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CU(cuMemUnmap(va, 2 * g));
    map_at(va, 2 * g, 0); // one new mapping over both
    grant(va, 2 * g, 0);
    write_k<<<GRID, 0, s1>>>((float *)va, N);
    CHECK(cudaStreamSynchronize(s1));
    read_k<<<GRID, 0, s2>>>((float *)va, N);
    CHECK(cudaDeviceSynchronize());
    CU(cuMemUnmap(va, 2 * g));
    CU(cuMemAddressFree(va, 4 * g));
    std::printf("vmm_span_race: done\n");
    return 0;
}

// fp_extent.cu - BUG: a kernel on one stream writes a whole buffer through
// the pointer to its start while another stream, unordered, clears its
// second half.  Without footprints cudalens takes a kernel's pointer as a
// point and misses it; the footprint (tests/races/fp_extent.fp.sql: the
// kernel writes [p, p + 4N bytes)) gives the extent, and the two overlap.
// rule: STREAM_ORDER
#include "races.h"

int main()
{
    float *d = dalloc();
    cudaStream_t a = nonblocking_stream(), b = nonblocking_stream();
    CHECK(cudaDeviceSynchronize());
    write_k<<<GRID, 0, a>>>(d, N);
    CHECK(cudaMemsetAsync(d + N / 2, 0, N / 2 * sizeof(float), b)); // expect-footprints: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("fp_extent: done\n");
    return 0;
}

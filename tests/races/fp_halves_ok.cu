// fp_halves_ok.cu - CORRECT: two streams that nothing orders each write
// one half of one allocation with the same kernel.  Clean without
// footprints (the pointers differ) and with them: the footprint
// (tests/races/fp_halves_ok.fp.sql) says each launch writes [p, p + n
// floats), so the two ranges do not overlap.
// rule: STREAM_ORDER
#include "races.h"

int main()
{
    float *d = dalloc();
    cudaStream_t a = nonblocking_stream(), b = nonblocking_stream();
    CHECK(cudaDeviceSynchronize());
    write_k<<<GRID, 0, a>>>(d, N / 2);
    write_k<<<GRID, 0, b>>>(d + N / 2, N / 2);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("fp_halves_ok: done\n");
    return 0;
}

// fp_shared_write.cu - BUG: the same kernel on two streams that nothing
// orders gets one output buffer through a non-const pointer, and writes it.
// Without footprints cudalens cannot tell a write from a read through a
// non-const pointer (shared-argument-race, a warning); with a footprint
// from a separate, instrumented run saying the kernel writes through that
// parameter (tests/races/fp_shared_write.fp.sql; on a GPU: cudalens run
// --footprint), it is a stream-race.
// rule: STREAM_ORDER
#include "races.h"

__global__ void scale_into(float *out, float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 2.0f;
}

int main()
{
    float *out = dalloc(), *in[2];
    cudaStream_t s[2];
    for (int i = 0; i < 2; i++) {
        s[i] = nonblocking_stream();
        in[i] = dalloc();
        CHECK(cudaMemset(in[i], 0, N * sizeof(float)));
    }
    CHECK(cudaDeviceSynchronize());
    scale_into<<<GRID, 0, s[0]>>>(out, in[0], N);
    scale_into<<<GRID, 0, s[1]>>>(out, in[1], N); // expect: shared-argument-race // expect-footprints: stream-race
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 2; i++)
        CHECK(cudaFree(in[i]));
    CHECK(cudaFree(out));
    std::printf("fp_shared_write: done\n");
    return 0;
}

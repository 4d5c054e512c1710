// broadcast_ok.cu - CORRECT: the same kernel on several streams reads one
// shared input through a non-const pointer (as NVIDIA's simpleStreams does
// with its factor array); each stream writes its own output.  Not an
// error: cudalens cannot tell a read from a write through a non-const
// pointer, so it warns (shared-argument-race) and suggests const.
// expect-none: stream-race
// rule: STREAM_ORDER
#include "races.h"

// factor is only read, but its parameter is not const
__global__ void scale_by(float *out, float *factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = factor[i] * 2.0f;
}

int main()
{
    const int streams = 4;
    cudaStream_t s[streams];
    float *out[streams];
    float *factor = dalloc();
    CHECK(cudaMemset(factor, 0, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < streams; i++) {
        s[i] = nonblocking_stream();
        out[i] = dalloc();
    }
    for (int i = 0; i < streams; i++)
        scale_by<<<GRID, 0, s[i]>>>(out[i], factor, N); // expect: shared-argument-race
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < streams; i++)
        CHECK(cudaFree(out[i]));
    CHECK(cudaFree(factor));
    std::printf("broadcast_ok: done\n");
    return 0;
}

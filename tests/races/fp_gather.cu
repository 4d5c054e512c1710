// fp_gather.cu - BUG: a kernel on one stream writes a buffer while a kernel
// on another, unordered, reads it through a pointer it loads from a table in
// device memory: no argument of the reader names the buffer, so without
// footprints cudalens sees nothing.  The footprint
// (tests/races/fp_gather.fp.sql: gather_k reads [0, 256) of the first
// 256-byte allocation through no parameter) places the read, by the order
// of the allocations: an indirect-race.
// rule: STREAM_ORDER
#include "races.h"

__global__ void gather_k(float *dst, float **table, int n)
{
    int i = threadIdx.x;
    if (i < n)
        dst[i] = table[0][i];
}

int main()
{
    float *src = nullptr, *dst = nullptr, **table = nullptr;
    CHECK(cudaMalloc(&src, 64 * sizeof(float)));
    CHECK(cudaMalloc(&dst, 64 * sizeof(float)));
    CHECK(cudaMalloc(&table, sizeof(float *)));
    CHECK(cudaMemcpy(table, &src, sizeof src, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
    cudaStream_t a = nonblocking_stream(), b = nonblocking_stream();
    write_k<<<1, 64, 0, a>>>(src, 64);
    gather_k<<<1, 64, 0, b>>>(dst, table, 64); // expect-footprints: indirect-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(table));
    CHECK(cudaFree(dst));
    CHECK(cudaFree(src));
    std::printf("fp_gather: done\n");
    return 0;
}

// neighbours_ok.cu - CORRECT: like a caching allocator, one big allocation
// is carved into two tensors; s1 writes the first, s2 the second.  They
// never overlap, so nothing races.
// rule: STREAM_ORDER
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *seg = nullptr;
    CHECK(cudaMalloc(&seg, 2 * N * sizeof(float)));
    float *t1 = seg, *t2 = seg + N;
    write_k<<<GRID, 0, s1>>>(t1, N);
    write_k<<<GRID, 0, s2>>>(t2, N);
    add_k<<<GRID, 0, s2>>>(t2, t2, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(seg));
    std::printf("neighbours_ok: done\n");
    return 0;
}

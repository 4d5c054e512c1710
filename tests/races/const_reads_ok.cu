// const_reads_ok.cu - CORRECT: two streams only read the same buffer (const
// pointer parameters), each writing its own output.
// rule: STREAM_ORDER
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *in = dalloc(), *o1 = dalloc(), *o2 = dalloc();
    CHECK(cudaMemset(in, 0, N * sizeof(float)));
    CHECK(cudaMemset(o1, 0, N * sizeof(float)));
    CHECK(cudaMemset(o2, 0, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    add_k<<<GRID, 0, s1>>>(o1, in, N);
    add_k<<<GRID, 0, s2>>>(o2, in, N);
    read_k<<<GRID, 0, s2>>>(in, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(in));
    CHECK(cudaFree(o1));
    CHECK(cudaFree(o2));
    std::printf("const_reads_ok: done\n");
    return 0;
}

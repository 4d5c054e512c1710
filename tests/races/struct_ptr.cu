// struct_ptr.cu - BUG: the pointers travel inside a struct passed by value;
// a kernel on s1 writes through one, a kernel on s2 reads the same buffer.
// The analysis cannot see constness inside structs: a possible race.
// rule: STREAM_ORDER
#include "races.h"

struct Pair {
    float *out;
    const float *in;
};

__global__ void copy_pair(Pair p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p.out[i] = p.in[i];
}

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *a = dalloc(), *b = dalloc(), *c = dalloc();
    CHECK(cudaMemset(a, 0, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    copy_pair<<<GRID, 0, s1>>>(Pair{ b, a }, N);
    copy_pair<<<GRID, 0, s2>>>(Pair{ c, b }, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    std::printf("struct_ptr: done\n");
    return 0;
}

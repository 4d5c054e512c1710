// stale_struct.cu - a structure passed by value that the program fills only
// as far as a launch needs, as PyTorch's multi-tensor metadata
// (TensorListMetadata) does: its unset members keep what the host's stack
// held.  Here those members are set on purpose to what such a stack holds:
// a pointer to a buffer another stream is writing, and a return address
// (an address in host code, which no kernel argument means).  The kernel touches only the slots it is told to (n), so
// the first launch does not race, but nothing in the launch says which
// slots are live: a stale-argument-race warning, not a stream-race error.
// The second launch's structure is fully set and uses the buffer: a race.
// rule: STREAM_ORDER
#include <cstdint>

#include "races.h"

static void host_code() {}

struct Table {
    float *slot[4];
    int n;
};

__global__ void double_table(Table t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < t.n; k++)
        if (i < n)
            t.slot[k][i] *= 2.0f;
}

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *a = dalloc(), *b = dalloc();
    CHECK(cudaMemset(a, 0, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    write_k<<<GRID, 0, s1>>>(b, N);
    Table stale;
    stale.n = 1;
    stale.slot[0] = a;
    stale.slot[1] = b;                        // left over: not used (n is 1)
    stale.slot[2] = (float *)(uintptr_t)&host_code; // left over: host code
    stale.slot[3] = nullptr;
    double_table<<<GRID, 0, s2>>>(stale, N); // expect: stale-argument-race
    Table full = {{a, b, nullptr, nullptr}, 2};
    double_table<<<GRID, 0, s2>>>(full, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    std::printf("stale_struct: done\n");
    return 0;
}

// stale_struct.cu - a structure passed by value that the program fills only
// as far as a launch needs, as PyTorch's multi-tensor metadata
// (TensorListMetadata) does: its unset members keep what the host's stack
// held.  Here those members are set on purpose to what such a stack holds:
// a return address (an address in host code, which no kernel argument
// means) and, in a slot the launch does not use, a pointer to a buffer
// another stream is writing.  The kernel touches only the slots it is told
// to (n), so the first launch does not race, and that slot held a pointer
// at only one of the kernel's launches: a stale-argument-race warning, not
// a stream-race error.  The second launch's structure is fully set and
// uses the buffer in its second slot: a race.  The third's is not fully
// set either, but uses the buffer (on a third stream) in its first slot,
// which held a pointer at every launch: a field the program sets
// (PyTorch's ReduceOp sets its pointers and leaves other members as the
// stack held them): a race.  The first structure again, in a CUDA graph's
// kernel node: a stale-argument-race as for the launch.
// rule: STREAM_ORDER GRAPH_LAUNCH
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
    cudaStream_t s3 = nonblocking_stream();
    float *a = dalloc(), *b = dalloc();
    CHECK(cudaMemset(a, 0, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    write_k<<<GRID, 0, s1>>>(b, N);
    Table stale;
    stale.n = 1;
    stale.slot[0] = a;
    stale.slot[1] = nullptr;
    stale.slot[2] = (float *)(uintptr_t)&host_code; // left over: host code
    stale.slot[3] = b;                        // left over: not used (n is 1)
    double_table<<<GRID, 0, s2>>>(stale, N); // expect: stale-argument-race
    Table full = {{a, b, nullptr, nullptr}, 2};
    double_table<<<GRID, 0, s2>>>(full, N); // expect: stream-race
    Table partial;
    partial.n = 1;
    partial.slot[0] = b;
    partial.slot[1] = nullptr;
    partial.slot[2] = (float *)(uintptr_t)&host_code; // left over: host code
    partial.slot[3] = nullptr;
    double_table<<<GRID, 0, s3>>>(partial, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    // the first structure captured into a graph: its kernel node's words are
    // marked as the launch's were
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s2, cudaStreamCaptureModeThreadLocal));
    double_table<<<GRID, 0, s2>>>(stale, N);
    CHECK(cudaStreamEndCapture(s2, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    write_k<<<GRID, 0, s1>>>(b, N);
    CHECK(cudaGraphLaunch(exec, s2)); // expect: stale-argument-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    std::printf("stale_struct: done\n");
    return 0;
}

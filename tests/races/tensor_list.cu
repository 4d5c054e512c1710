// tensor_list.cu - BUG: a kernel takes its tensors' addresses in one
// structure passed by value, as PyTorch's multi-tensor kernels do (the
// foreach ops and fused optimizers: TensorListMetadata, up to 1,050
// addresses): 24 parameters, then their 24 gradients.  Gradient 20 is
// written on s1 and the update on s2 reads it without waiting: a race
// through the structure's 45th word (a launch keeps its first 16 words in
// its call record, the rest in the records after it).  A word past a
// parameter's 16th may be a slot the launch left as the stack held it
// (shim/kparams.c: marked), but every launch of sgd_k held a pointer
// there: a field the program sets, so a stream-race.  Then the same with
// the wait: no race.  Then the update captured into a CUDA graph and
// replayed: its kernel node keeps and marks its words as a launch does.
// rule: STREAM_ORDER GRAPH_LAUNCH
#include "races.h"

#define TENSORS 24

struct TensorList {
    float *addr[2][TENSORS]; // parameters, gradients
    int n;
};

__global__ void sgd_k(TensorList t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < t.n; k++)
        if (i < n)
            t.addr[0][k][i] -= 0.1f * t.addr[1][k][i];
}

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    TensorList t;
    t.n = TENSORS;
    for (int k = 0; k < TENSORS; k++) {
        t.addr[0][k] = dalloc();
        t.addr[1][k] = dalloc();
        CHECK(cudaMemset(t.addr[0][k], 0, N * sizeof(float)));
        CHECK(cudaMemset(t.addr[1][k], 0, N * sizeof(float)));
    }
    CHECK(cudaDeviceSynchronize());
    write_k<<<GRID, 0, s1>>>(t.addr[1][20], N);
    sgd_k<<<GRID, 0, s2>>>(t, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    write_k<<<GRID, 0, s1>>>(t.addr[1][20], N);
    CHECK(cudaEventRecord(e, s1));
    CHECK(cudaStreamWaitEvent(s2, e, 0));
    sgd_k<<<GRID, 0, s2>>>(t, N);
    CHECK(cudaDeviceSynchronize());
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s2, cudaStreamCaptureModeThreadLocal));
    sgd_k<<<GRID, 0, s2>>>(t, N);
    CHECK(cudaStreamEndCapture(s2, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    write_k<<<GRID, 0, s1>>>(t.addr[1][20], N);
    CHECK(cudaGraphLaunch(exec, s2)); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    for (int k = 0; k < TENSORS; k++) {
        CHECK(cudaFree(t.addr[0][k]));
        CHECK(cudaFree(t.addr[1][k]));
    }
    std::printf("tensor_list: done\n");
    return 0;
}

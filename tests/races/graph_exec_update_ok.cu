// graph_exec_update_ok.cu - CORRECT: an executable graph made from a graph
// whose kernel writes a is updated (cudaGraphExecUpdate) from a graph of
// the same shape whose kernel writes b; after the launch on s1, s2 reads
// a, which the launched graph no longer touches.  Clean only if the update
// is seen.
// rule: GRAPH_LAUNCH
#include "races.h"

static cudaGraph_t one_kernel(float **buf, int *n)
{
    cudaGraph_t graph;
    cudaGraphNode_t k;
    CHECK(cudaGraphCreate(&graph, 0));
    void *args[] = {buf, n};
    cudaKernelNodeParams p = {};
    p.func = (void *)write_k;
    p.gridDim = dim3(N / 256);
    p.blockDim = dim3(256);
    p.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&k, graph, nullptr, 0, &p));
    return graph;
}

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *a = dalloc(), *b = dalloc();
    int n = N;
    cudaGraph_t ga = one_kernel(&a, &n), gb = one_kernel(&b, &n);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, ga, 0));
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(exec, gb, &info));

    CHECK(cudaGraphLaunch(exec, s1));
    read_k<<<GRID, 0, s2>>>(a, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(ga));
    CHECK(cudaGraphDestroy(gb));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    std::printf("graph_exec_update_ok: done\n");
    return 0;
}

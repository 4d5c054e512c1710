// graph_unordered_nodes.cu - BUG: a graph built with the explicit API has
// two kernel nodes that write a (write_k and add_k), and no path of edges between them: a
// launch may run them at the same time.
// rule: GRAPH_LAUNCH
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *a = dalloc(), *b = dalloc();
    int n = N;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaGraphNode_t k1, k2;
    CHECK(cudaGraphCreate(&graph, 0));
    void *args[] = {&a, &n};
    cudaKernelNodeParams p = {};
    p.func = (void *)write_k;
    p.gridDim = dim3(N / 256);
    p.blockDim = dim3(256);
    p.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&k1, graph, nullptr, 0, &p));
    void *args2[] = {&a, &b, &n};
    p.func = (void *)add_k;
    p.kernelParams = args2;
    CHECK(cudaGraphAddKernelNode(&k2, graph, nullptr, 0, &p)); // expect: stream-race
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    std::printf("graph_unordered_nodes: done (%p %p)\n", (void *)k1, (void *)k2);
    return 0;
}

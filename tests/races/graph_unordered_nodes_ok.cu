// graph_unordered_nodes_ok.cu - CORRECT twin of graph_unordered_nodes.cu:
// the second kernel node depends on the first (an edge orders them), and
// the graph is launched again on another stream with nothing between
// (the launches of one executable graph are ordered).
// rule: GRAPH_LAUNCH GRAPH_EDGES GRAPH_EXEC_ORDER
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream(), s2 = nonblocking_stream();
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
    CHECK(cudaGraphAddKernelNode(&k2, graph, &k1, 1, &p));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaGraphLaunch(exec, s2));
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    std::printf("graph_unordered_nodes_ok: done\n");
    return 0;
}

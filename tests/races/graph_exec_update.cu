// graph_exec_update.cu - BUG: an executable graph's kernel node is pointed
// at b (cudaGraphExecKernelNodeSetParams) after instantiation; the graph
// is launched on s1 and a kernel on s2 reads b with nothing ordering it
// after the launch.  The race is seen only if the update is.
// rule: GRAPH_LAUNCH
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *a = dalloc(), *b = dalloc();
    int n = N;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaGraphNode_t k;
    CHECK(cudaGraphCreate(&graph, 0));
    void *args[] = {&a, &n};
    cudaKernelNodeParams p = {};
    p.func = (void *)write_k;
    p.gridDim = dim3(N / 256);
    p.blockDim = dim3(256);
    p.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&k, graph, nullptr, 0, &p));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    void *args_b[] = {&b, &n};
    p.kernelParams = args_b;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, k, &p));

    CHECK(cudaGraphLaunch(exec, s1));
    read_k<<<GRID, 0, s2>>>(b, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    std::printf("graph_exec_update: done\n");
    return 0;
}

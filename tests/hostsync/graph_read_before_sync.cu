// graph_read_before_sync.cu - BUG: a graph's memcpy node copies device
// memory into pinned memory; the host reads it after launching the graph
// and before synchronizing.
// rule: GRAPH_LAUNCH
#include "common.h"

int main()
{
    float *d, *h;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMemset(d, 0, N * sizeof(float)));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaGraphNode_t copy;
    CHECK(cudaGraphCreate(&graph, 0));
    CHECK(cudaGraphAddMemcpyNode1D(&copy, graph, nullptr, 0, h, d, N * sizeof(float),
                                   cudaMemcpyDeviceToHost));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s));
    float first = h[0]; // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    double sum = checksum(h, N) + first;
    std::printf("graph_read_before_sync: %g\n", sum);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

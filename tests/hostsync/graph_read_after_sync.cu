// graph_read_after_sync.cu - CORRECT twin of graph_read_before_sync.cu:
// the host reads the pinned memory a graph's memcpy node writes after
// synchronizing the launch's stream, which covers every node.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: GRAPH_LAUNCH GRAPH_COMPLETION
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
    CHECK(cudaStreamSynchronize(s));
    float first = h[0];
    double sum = checksum(h, N) + first;
    std::printf("graph_read_after_sync: %g\n", sum);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

// graph_other_stream_ok.cu - CORRECT twin of graph_other_stream.cu: s2
// waits for an event recorded on s1 after the launch, which covers every
// node of the graph.
// rule: GRAPH_LAUNCH GRAPH_COMPLETION CAPTURE_BEGIN CAPTURE_END
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    float *a = dalloc();
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    write_k<<<GRID, 0, s1>>>(a, N);
    CHECK(cudaStreamEndCapture(s1, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaEventRecord(done, s1));
    CHECK(cudaStreamWaitEvent(s2, done, 0));
    read_k<<<GRID, 0, s2>>>(a, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(a));
    std::printf("graph_other_stream_ok: done\n");
    return 0;
}

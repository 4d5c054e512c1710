// graph_other_stream.cu - BUG: a graph captured from s1 (a kernel writing
// a) is launched on s1, and a kernel on s2 reads a with nothing ordering it
// after the launch.
// rule: GRAPH_LAUNCH CAPTURE_BEGIN CAPTURE_END
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *a = dalloc();
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    write_k<<<GRID, 0, s1>>>(a, N);
    CHECK(cudaStreamEndCapture(s1, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CHECK(cudaGraphLaunch(exec, s1));
    read_k<<<GRID, 0, s2>>>(a, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(a));
    std::printf("graph_other_stream: done\n");
    return 0;
}

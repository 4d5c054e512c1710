// graph_ok.cu - CORRECT: a
// graph captured from two streams (fork and join through events) is
// launched on s1 twice; s2 reads the result after waiting for an event.
// Captured work does not run at capture time; the analysis must not pair
// it with anything.
// rule: GRAPH_LAUNCH GRAPH_EDGES GRAPH_COMPLETION GRAPH_EXEC_ORDER CAPTURE_BEGIN CAPTURE_END
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaStream_t side = nonblocking_stream();
    cudaEvent_t fork, join, done;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    float *a = dalloc(), *b = dalloc();

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    write_k<<<GRID, 0, s1>>>(a, N);
    CHECK(cudaEventRecord(fork, s1));
    CHECK(cudaStreamWaitEvent(side, fork, 0));
    write_k<<<GRID, 0, side>>>(b, N);
    add_k<<<GRID, 0, s1>>>(a, a, N);
    CHECK(cudaEventRecord(join, side));
    CHECK(cudaStreamWaitEvent(s1, join, 0));
    add_k<<<GRID, 0, s1>>>(a, b, N);
    CHECK(cudaStreamEndCapture(s1, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));

    for (int i = 0; i < 2; i++)
        CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaEventRecord(done, s1));
    CHECK(cudaStreamWaitEvent(s2, done, 0));
    read_k<<<GRID, 0, s2>>>(a, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    std::printf("graph_ok: done\n");
    return 0;
}

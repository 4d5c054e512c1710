// graph_replay_refill_ok.cu - CORRECT twin of graph_replay_refill.cu: the
// replay's stream waits for the side stream's refill (PyTorch:
// torch.cuda.current_stream().wait_stream(side) before g.replay()), and the
// next refill waits for the replay.
// rule: GRAPH_LAUNCH GRAPH_COMPLETION CAPTURE_BEGIN CAPTURE_END
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream(), side = nonblocking_stream();
    cudaEvent_t filled, used;
    CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&used, cudaEventDisableTiming));
    float *in = dalloc(), *out = dalloc(), *h = nullptr;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    for (int i = 0; i < N; i++)
        h[i] = (float)i;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    add_k<<<GRID, 0, s>>>(out, in, N);
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));

    for (int step = 0; step < 2; step++) {
        CHECK(cudaMemcpyAsync(in, h, N * sizeof(float), cudaMemcpyHostToDevice, side));
        CHECK(cudaEventRecord(filled, side));
        CHECK(cudaStreamWaitEvent(s, filled, 0));
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaEventRecord(used, s));
        CHECK(cudaStreamWaitEvent(side, used, 0));
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    std::printf("graph_replay_refill_ok: done\n");
    return 0;
}

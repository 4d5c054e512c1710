// graph_replay_refill.cu - BUG: the pattern of a PyTorch CUDA-graph replay
// (torch.cuda.graph / CUDAGraph.replay()): a graph captured on s reads the
// static input buffer `in`; a side stream refills `in` from pinned memory
// and the graph is replayed on s without waiting for the side stream.
// rule: GRAPH_LAUNCH CAPTURE_BEGIN CAPTURE_END
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream(), side = nonblocking_stream();
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

    CHECK(cudaMemcpyAsync(in, h, N * sizeof(float), cudaMemcpyHostToDevice, side));
    CHECK(cudaGraphLaunch(exec, s)); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    std::printf("graph_replay_refill: done\n");
    return 0;
}

// capture_ok.cu - CORRECT: copies captured into a CUDA graph only describe
// work; the pinned buffer is filled, read and freed around graph launches
// that are synchronized (NVIDIA's simpleCudaGraphs frees such a buffer
// right after capturing).
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: CAPTURE_BEGIN CAPTURE_END GRAPH_LAUNCH
#include "common.h"

int main()
{
    float *d, *h;
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    for (size_t i = 0; i < N; i++)
        h[i] = 1.0f;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    fill<<<(N + 255) / 256, 256, 0, s>>>(d, 6.0f, N);
    CHECK(cudaStreamEndCapture(s, &graph));
    h[0] = 2.0f; // the captured copy has not run
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    std::printf("capture_ok: %g\n", checksum(h, N));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

// callback_ok.cu - CORRECT: the host reads the copy's destination in a host
// function enqueued after the copy on the same stream (it runs once the
// copy is done), as NVIDIA's simpleCallback does with cudaStreamAddCallback.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: HOST_FUNC
#include "common.h"

static double sum;

static void CUDART_CB consume(void *data)
{
    sum = checksum((const float *)data, N);
}

int main()
{
    float *d, *h;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill<<<(N + 255) / 256, 256, 0, s>>>(d, 5.0f, N);
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaLaunchHostFunc(s, consume, h));
    CHECK(cudaStreamSynchronize(s));
    std::printf("callback_ok: %g\n", sum);
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

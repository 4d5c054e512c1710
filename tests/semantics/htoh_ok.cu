// htoh_ok.cu - correct: a copy between two host buffers "is fully
// synchronous with respect to the host" ("API synchronization behavior"),
// even cudaMemcpyAsync, so an async upload of the destination on a
// non-blocking stream issued afterwards reads the copied data.
// rule: ANY_HTOH
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *a = nullptr, *b = nullptr;
    CHECK(cudaMallocHost(&a, N * sizeof(float)));
    CHECK(cudaMallocHost(&b, N * sizeof(float)));
    for (int i = 0; i < N; i++)
        a[i] = 2.0f;
    float *d = dalloc();
    CHECK(cudaMemcpyAsync(b, a, N * sizeof(float), cudaMemcpyHostToHost, 0));
    CHECK(cudaMemcpyAsync(d, b, N * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(a));
    CHECK(cudaFreeHost(b));
    std::printf("htoh_ok: done\n");
    return 0;
}

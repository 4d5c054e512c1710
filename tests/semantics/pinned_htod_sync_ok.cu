// pinned_htod_sync_ok.cu - correct: a blocking cudaMemcpy from pinned host
// memory to the device "is synchronous with respect to the host" ("API
// synchronization behavior"), so a kernel on a non-blocking stream issued
// afterwards reads the copied data (unlike pageable_staged).
// rule: SYNC_HTOD_PINNED
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *h = nullptr;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    for (int i = 0; i < N; i++)
        h[i] = 1.0f;
    float *d = dalloc();
    CHECK(cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice));
    read_k<<<GRID, 0, s>>>(d, N);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    std::printf("pinned_htod_sync_ok: done\n");
    return 0;
}

// mallocasync_ok.cu - CORRECT twin of mallocasync_use / freeasync_in_use:
// s2 waits for the allocation, s1 waits for s2's use before the free.
// rule: ALLOC FREE
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t allocated, used;
    CHECK(cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&used, cudaEventDisableTiming));
    float *d = nullptr;
    CHECK(cudaMallocAsync(&d, N * sizeof(float), s1));
    CHECK(cudaEventRecord(allocated, s1));
    CHECK(cudaStreamWaitEvent(s2, allocated, 0));
    write_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaEventRecord(used, s2));
    CHECK(cudaStreamWaitEvent(s1, used, 0));
    CHECK(cudaFreeAsync(d, s1));
    CHECK(cudaDeviceSynchronize());
    std::printf("mallocasync_ok: done\n");
    return 0;
}

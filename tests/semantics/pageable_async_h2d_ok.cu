// pageable_async_h2d_ok.cu - the twin of pageable_async_h2d: the reading
// stream waits for an event recorded after the copy.
// rule: ASYNC_HTOD_PAGEABLE STREAM_WAIT_EVENT
#include <vector>
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    std::vector<float> h(N, 1.0f);
    float *d = dalloc();
    CHECK(cudaMemcpyAsync(d, h.data(), N * sizeof(float), cudaMemcpyHostToDevice, s1));
    CHECK(cudaEventRecord(e, s1));
    CHECK(cudaStreamWaitEvent(s2, e, 0));
    read_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventDestroy(e));
    CHECK(cudaFree(d));
    std::printf("pageable_async_h2d_ok: done\n");
    return 0;
}

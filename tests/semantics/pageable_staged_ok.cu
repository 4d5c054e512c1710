// pageable_staged_ok.cu - the twin of pageable_staged: the copy's stream
// (the legacy default stream) is synchronized before the kernel on the
// non-blocking stream, so the DMA to the destination is known complete.
// rule: SYNC_HTOD_PAGEABLE SYNC_STREAM
#include <vector>
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    std::vector<float> h(N, 1.0f);
    float *d = dalloc();
    CHECK(cudaMemcpy(d, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaStreamSynchronize(0));
    read_k<<<GRID, 0, s>>>(d, N);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(d));
    std::printf("pageable_staged_ok: done\n");
    return 0;
}

// pageable_staged.cu - BUG by the letter of the documentation: a blocking
// cudaMemcpy from pageable memory to the device "returns once the pageable
// buffer has been copied to the staging memory for DMA transfer to device
// memory, but the DMA to final destination may not have completed" ("API
// synchronization behavior"), so a kernel on a non-blocking stream that
// reads the destination right after is not ordered after the copy.
// rule: SYNC_HTOD_PAGEABLE
#include <vector>
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    std::vector<float> h(N, 1.0f);
    float *d = dalloc();
    CHECK(cudaMemcpy(d, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    read_k<<<GRID, 0, s>>>(d, N); // expect: staged-copy-race
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(d));
    std::printf("pageable_staged: done\n");
    return 0;
}

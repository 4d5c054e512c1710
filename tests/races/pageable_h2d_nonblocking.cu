// pageable_h2d_nonblocking.cu - BUG: cudaMemcpy from pageable memory
// returns once the data is staged, before it reaches the device (CUDA's
// API synchronization rules); a kernel on a non-blocking stream may read
// the buffer before the copy lands.  Seen in practice above 256 KiB.
// Reported as the staging rule's own warning (staged-copy-race): an error
// is kept for what no documented rule orders.
// rule: SYNC_HTOD_PAGEABLE
#include <cstdlib>
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *h = (float *)std::calloc(N, sizeof(float));
    float *d = dalloc();
    CHECK(cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice));
    read_k<<<GRID, 0, s>>>(d, N); // expect: staged-copy-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::free(h);
    std::printf("pageable_h2d_nonblocking: done\n");
    return 0;
}

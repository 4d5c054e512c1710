// memset_sync_ok.cu - the twin of races/memset_nonblocking: cudaMemset of
// device memory is asynchronous to the host, so the legacy default stream
// it ran on is synchronized before a kernel on a non-blocking stream reads
// the buffer.
// rule: MEMSET_SYNC SYNC_STREAM
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *d = dalloc();
    CHECK(cudaMemset(d, 0, N * sizeof(float)));
    CHECK(cudaStreamSynchronize(0));
    read_k<<<GRID, 0, s>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("memset_sync_ok: done\n");
    return 0;
}

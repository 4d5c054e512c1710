// device_sync_ok.cu - CORRECT: cudaDeviceSynchronize separates a write on
// the legacy default stream and a read on a non-blocking stream, and a
// cudaMemcpy to the host separates a later write.
// rule: SYNC_DEVICE SYNC_DTOH NONBLOCKING_STREAM
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *d = dalloc();
    float h[4];
    write_k<<<GRID>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    read_k<<<GRID, 0, s>>>(d, N);
    CHECK(cudaStreamSynchronize(s));
    add_k<<<GRID>>>(d, d, N);
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    write_k<<<GRID, 0, s>>>(d, N);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(d));
    std::printf("device_sync_ok: done (%g)\n", h[1]);
    return 0;
}

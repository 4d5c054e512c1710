// dtod_sync_ok.cu - the twin of dtod_sync: the legacy default stream, which
// the device-to-device copy ran on, is synchronized before the read.
// rule: SYNC_DTOD SYNC_STREAM
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *src = dalloc(), *dst = dalloc();
    CHECK(cudaMemset(src, 0, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(dst, src, N * sizeof(float), cudaMemcpyDeviceToDevice));
    CHECK(cudaStreamSynchronize(0));
    read_k<<<GRID, 0, s>>>(dst, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    std::printf("dtod_sync_ok: done\n");
    return 0;
}

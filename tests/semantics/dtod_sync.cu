// dtod_sync.cu - BUG: a blocking cudaMemcpy from device to device returns
// at once ("For transfers from device memory to device memory, no
// host-side synchronization is performed"), so a kernel on a non-blocking
// stream that reads the destination right after is not ordered after it.
// rule: SYNC_DTOD
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *src = dalloc(), *dst = dalloc();
    CHECK(cudaMemset(src, 0, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(dst, src, N * sizeof(float), cudaMemcpyDeviceToDevice));
    read_k<<<GRID, 0, s>>>(dst, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    std::printf("dtod_sync: done\n");
    return 0;
}

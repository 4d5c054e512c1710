// pageable_source_reuse_ok.cu - correct (NVIDIA's graphMemoryNodes does
// this): a blocking cudaMemcpy from pageable memory to the device has
// finished reading its source when it returns ("API synchronization
// behavior": for transfers from pageable host memory to device memory, the
// function returns once the pageable buffer has been copied to the staging
// memory), so the host buffer may be reused at once, here as the
// destination of a device-to-host copy on a non-blocking stream.
// rule: SYNC_HTOD_PAGEABLE
#include <vector>
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    std::vector<float> h(N, 1.0f);
    float *d = dalloc();
    CHECK(cudaMemcpy(d, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    float *d2 = dalloc();
    CHECK(cudaMemsetAsync(d2, 0, N * sizeof(float), s));
    CHECK(cudaMemcpyAsync(h.data(), d2, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    CHECK(cudaFree(d2));
    std::printf("pageable_source_reuse_ok: done\n");
    return 0;
}

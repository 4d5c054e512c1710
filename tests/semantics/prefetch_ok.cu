// prefetch_ok.cu - correct: cudaMemPrefetchAsync is stream ordered, so a
// prefetch of managed memory to the device, the kernel that writes it and
// the prefetch back to the host all run in the order of one non-blocking
// stream, and the host reads after synchronizing that stream.
// rule: PREFETCH SYNC_STREAM
#include "races.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    float *m = nullptr;
    CHECK(cudaMallocManaged(&m, N * sizeof(float)));
    cudaMemLocation dev = {}, host = {};
    dev.type = cudaMemLocationTypeDevice;
    dev.id = 0;
    host.type = cudaMemLocationTypeHost;
    CHECK(cudaMemPrefetchAsync(m, N * sizeof(float), dev, 0, s));
    write_k<<<GRID, 0, s>>>(m, N);
    CHECK(cudaMemPrefetchAsync(m, N * sizeof(float), host, 0, s));
    CHECK(cudaStreamSynchronize(s));
    std::printf("prefetch_ok: m[1] = %g\n", m[1]);
    CHECK(cudaFree(m));
    std::printf("prefetch_ok: done\n");
    return 0;
}

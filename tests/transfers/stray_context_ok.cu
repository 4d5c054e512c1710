// stray_context_ok.cu - the fixed twin of stray_context.cu: the rank
// selects its device before any other CUDA call, so the process has a
// context only where it works.  No finding expected.  Needs 2 devices.
#include "spin.h"

int main()
{
    const int n = 1 << 16;
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 2) {
        std::printf("stray_context_ok: SKIP: needs 2 devices, found %d\n", count);
        return 77;
    }
    const char *r = std::getenv("LOCAL_RANK");
    int rank = r ? std::atoi(r) : count - 1;
    if (rank <= 0 || rank >= count)
        rank = count - 1;
    CHECK(cudaSetDevice(rank));  // first
    CHECK(cudaFree(0));
    float *d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemset(d, 0, n * sizeof(float)));
    scale<<<blocks_for(n), 256>>>(d, n, 2.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("stray_context_ok: ok (rank device %d)\n", rank);
    return 0;
}

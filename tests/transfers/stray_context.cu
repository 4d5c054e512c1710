// stray_context.cu - BUGGY sample for `stray-context`: a "rank" that
// initializes CUDA (cudaFree(0), as libraries and torch.cuda.* calls do)
// before selecting its own device, so it also creates a context on device
// 0, where it does no work.  Every rank of a job doing this piles contexts
// onto GPU 0.  The rank's device is LOCAL_RANK (default: the last device).
// Needs 2 devices (exits 77 otherwise).  Twin: stray_context_ok.cu.
#include "spin.h"

int main()
{
    const int n = 1 << 16;
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 2) {
        std::printf("stray_context: SKIP: needs 2 devices, found %d\n", count);
        return 77;
    }
    const char *r = std::getenv("LOCAL_RANK");
    int rank = r ? std::atoi(r) : count - 1;
    if (rank <= 0 || rank >= count)
        rank = count - 1;
    CHECK(cudaFree(0)); // expect: stray-context
    CHECK(cudaSetDevice(rank));
    float *d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemset(d, 0, n * sizeof(float)));
    scale<<<blocks_for(n), 256>>>(d, n, 2.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("stray_context: ok (rank device %d)\n", rank);
    return 0;
}

// excess_sync_ok.cu - the fixed twin of excess_sync.cu: the same work,
// queued without waiting, and one synchronization when the results are
// needed.  No finding expected.
#include "spin.h"

int main()
{
    const int iters = 30;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    for (int i = 0; i < iters; i++) {
        spin<<<1, 1, 0, s>>>(10 * 1000 * 1000);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(s));  // once, when the results are needed
    CHECK(cudaStreamDestroy(s));
    std::printf("excess_sync_ok: ok\n");
    return 0;
}

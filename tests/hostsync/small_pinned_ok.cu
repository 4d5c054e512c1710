// small_pinned_ok.cu - CORRECT: the twin of small_pinned_read.cu.  While
// the async copy of the 16-byte result is in flight, the host only touches
// a counter that shares the result's page (the same pinned allocation,
// bytes the copy does not write); it reads the result after synchronizing.
// The program's output is the same with cudalens.
// expect-none: host-read-before-sync host-write-before-sync
// rule: ASYNC_OTHER SYNC_STREAM
#include <cstring>
#include "common.h"

struct result {
    float value[4]; // the copy's destination
    int polls;      // the host's own, beside it on the page
    int pad[3];
};

int main()
{
    float *d;
    result *r;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, 4 * sizeof(float)));
    CHECK(cudaMallocHost(&r, sizeof *r));
    std::memset(r, 0, sizeof *r);
    CHECK(cudaMemset(d, 0, 4 * sizeof(float)));
    CHECK(cudaMemcpyAsync(r->value, d, 4 * sizeof(float), cudaMemcpyDeviceToHost, s));
    for (int i = 0; i < 100; i++)
        r->polls++;
    CHECK(cudaStreamSynchronize(s));
    std::printf("small_pinned_ok: %g %d\n",
                r->value[0] + r->value[1] + r->value[2] + r->value[3], r->polls);
    CHECK(cudaFreeHost(r));
    CHECK(cudaFree(d));
    return 0;
}

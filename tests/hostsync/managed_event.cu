// managed_event.cu - CORRECT: an event recorded after the kernel is
// synchronized before the host reads and writes the managed output.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: SYNC_EVENT EVENT_RECORD
#include "common.h"

int main()
{
    float *m;
    cudaStream_t s;
    cudaEvent_t done;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaMallocManaged(&m, N * sizeof(float)));
    fill<<<(N + 255) / 256, 256, 0, s>>>(m, 4.0f, N);
    CHECK(cudaEventRecord(done, s));
    CHECK(cudaEventSynchronize(done));
    double sum = checksum(m, N);
    m[N / 2] = 42.0f;
    std::printf("managed_event: %g\n", sum);
    CHECK(cudaFree(m));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

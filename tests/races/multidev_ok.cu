// multidev_ok.cu - CORRECT: device 0 computes, device 1's stream waits for
// an event of device 0 and then copies the result over (peer copy), and
// device 0 reuses its buffer only after an event of device 1.  With one
// device, it does the same with two streams of device 0.
// rule: ASYNC_OTHER STREAM_WAIT_EVENT
#include "races.h"

int main()
{
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    int d1 = count >= 2 ? 1 : 0;
    cudaStream_t s0, s1;
    cudaEvent_t e0, e1;
    float *a, *b;
    CHECK(cudaSetDevice(0));
    s0 = nonblocking_stream();
    CHECK(cudaEventCreateWithFlags(&e0, cudaEventDisableTiming));
    a = dalloc();
    CHECK(cudaSetDevice(d1));
    s1 = nonblocking_stream();
    CHECK(cudaEventCreateWithFlags(&e1, cudaEventDisableTiming));
    b = dalloc();

    CHECK(cudaSetDevice(0));
    write_k<<<GRID, 0, s0>>>(a, N);
    CHECK(cudaEventRecord(e0, s0));
    CHECK(cudaSetDevice(d1));
    CHECK(cudaStreamWaitEvent(s1, e0, 0));
    CHECK(cudaMemcpyPeerAsync(b, d1, a, 0, N * sizeof(float), s1));
    read_k<<<GRID, 0, s1>>>(b, N);
    CHECK(cudaEventRecord(e1, s1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(s0, e1, 0));
    write_k<<<GRID, 0, s0>>>(a, N);
    CHECK(cudaStreamSynchronize(s0));
    CHECK(cudaSetDevice(d1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaFree(b));
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(a));
    std::printf("multidev_ok: done (%d devices)\n", count);
    return 0;
}

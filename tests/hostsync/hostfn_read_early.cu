// hostfn_read_early.cu - BUG: the program enqueues a host function after an
// async device-to-host copy to learn when the copy is done, but reads the
// copy's pinned destination right away, before the host function ran (the
// host function runs once the copy completed, not when it is enqueued).
// A kernel that spins first keeps the copy, and so the host function,
// pending while the host reads (the test gives it 200 ms of simulated time).
// rule: HOST_FUNC
#include <atomic>
#include "common.h"

static std::atomic<int> done;

__global__ void spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles)
        ;
}

static void CUDART_CB mark_done(void *)
{
    done = 1;
}

int main()
{
    float *d, *h;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMemset(d, 0, N * sizeof(float)));
    spin<<<1, 1, 0, s>>>(200000000LL); // about 100 ms on a 2 GHz GPU
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaLaunchHostFunc(s, mark_done, nullptr));
    float first = h[0]; // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    double sum = checksum(h, N) + first;
    std::printf("hostfn_read_early: %g %d\n", sum, done.load());
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

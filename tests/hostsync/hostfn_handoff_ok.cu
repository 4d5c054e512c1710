// hostfn_handoff_ok.cu - CORRECT: XLA's stream executor's pattern.  A host
// function enqueued after a device-to-host copy into one pinned buffer and
// a host-to-device copy from another hands both buffers back to the main
// thread through a mutex and a condition variable; the main thread then
// reads the first and refills the second, without synchronizing the
// stream.  The host function ran once both copies completed ([API]
// cudaLaunchHostFunc), and told the main thread so.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: HOST_FUNC
#include <pthread.h>
#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int returned; // buffers back in the "pool"

static void CUDART_CB give_back(void *)
{
    pthread_mutex_lock(&mu);
    returned = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

int main()
{
    float *d, *e, *in, *out;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMalloc(&e, N * sizeof(float)));
    CHECK(cudaMallocHost(&in, N * sizeof(float)));
    CHECK(cudaMallocHost(&out, N * sizeof(float)));
    for (size_t i = 0; i < N; i++)
        in[i] = 1.0f;
    fill<<<(N + 255) / 256, 256, 0, s>>>(d, 3.0f, N);
    CHECK(cudaMemcpyAsync(out, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(e, in, N * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaLaunchHostFunc(s, give_back, nullptr));
    pthread_mutex_lock(&mu);
    while (!returned)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    double sum = checksum(out, N);
    for (size_t i = 0; i < N; i += 1024)
        in[i] = 2.0f; // the staging buffer, refilled for the next copy
    std::printf("hostfn_handoff_ok: %g\n", sum);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeHost(in));
    CHECK(cudaFreeHost(out));
    CHECK(cudaFree(d));
    CHECK(cudaFree(e));
    return 0;
}

// hostfn_event_ok.cu - CORRECT: how XLA's stream executor (JAX) returns its
// pinned staging buffer.  The host-to-device copy from the buffer runs on
// one stream; an event recorded after it is waited for by a second stream
// (cudaStreamWaitEvent), and a host function enqueued there hands the
// buffer back through a condition variable; the main thread then refills
// it.  The host function ran once the work its stream waited for was done
// ([API] cudaLaunchHostFunc, cudaStreamWaitEvent).  hostfn_no_wait.cu is
// the bug.
// expect-none: host-read-before-sync host-write-before-sync pinned-free-before-sync
// rule: HOST_FUNC STREAM_WAIT_EVENT
#include <pthread.h>
#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int returned;

static void CUDART_CB give_back(void *)
{
    pthread_mutex_lock(&mu);
    returned = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

int main()
{
    float *d, *stage;
    cudaStream_t h2d, aux;
    cudaEvent_t copied;
    CHECK(cudaStreamCreateWithFlags(&h2d, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&aux, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&stage, N * sizeof(float)));
    for (size_t i = 0; i < N; i++)
        stage[i] = 1.0f;
    CHECK(cudaMemcpyAsync(d, stage, N * sizeof(float), cudaMemcpyHostToDevice, h2d));
    CHECK(cudaEventRecord(copied, h2d));
    CHECK(cudaStreamWaitEvent(aux, copied, 0));
    CHECK(cudaLaunchHostFunc(aux, give_back, nullptr));
    pthread_mutex_lock(&mu);
    while (!returned)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    for (size_t i = 0; i < N; i += 1024)
        stage[i] = 2.0f; // the next batch
    CHECK(cudaStreamSynchronize(h2d));
    std::printf("hostfn_event_ok: %g\n", checksum(stage, N));
    CHECK(cudaFreeHost(stage));
    CHECK(cudaFree(d));
    return 0;
}

// hostfn_no_wait.cu - BUG: the twin of hostfn_event_ok.cu without the
// cudaStreamWaitEvent: the host function on the second stream runs at once
// and says nothing about the copy, so the main thread refills the staging
// buffer while the host-to-device copy may still be reading it.
// rule: HOST_FUNC
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
    CHECK(cudaStreamCreateWithFlags(&h2d, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&aux, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&stage, N * sizeof(float)));
    for (size_t i = 0; i < N; i++)
        stage[i] = 1.0f;
    CHECK(cudaMemcpyAsync(d, stage, N * sizeof(float), cudaMemcpyHostToDevice, h2d));
    CHECK(cudaLaunchHostFunc(aux, give_back, nullptr));
    pthread_mutex_lock(&mu);
    while (!returned)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    touch_write(&stage[0]); // expect: host-write-before-sync
    CHECK(cudaStreamSynchronize(h2d));
    std::printf("hostfn_no_wait: %g\n", checksum(stage, N));
    CHECK(cudaFreeHost(stage));
    CHECK(cudaFree(d));
    return 0;
}

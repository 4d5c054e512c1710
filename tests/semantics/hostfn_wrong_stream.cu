// hostfn_wrong_stream.cu - BUG: the twin of hostfn_handoff.cu with the host
// function enqueued on the wrong stream: it runs once stream C's work is
// done, which says nothing about the write on stream A, so the read on
// stream B races with it (a stream-race, an error).
// rule: HOST_FUNC
#include <pthread.h>
#include "races.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static float *pool;

static void CUDART_CB give_back(void *buf)
{
    pthread_mutex_lock(&mu);
    pool = (float *)buf;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

static float *take()
{
    pthread_mutex_lock(&mu);
    while (!pool)
        pthread_cond_wait(&cv, &mu);
    float *p = pool;
    pool = nullptr;
    pthread_mutex_unlock(&mu);
    return p;
}

int main()
{
    float *d = dalloc();
    CHECK(cudaDeviceSynchronize());
    cudaStream_t a = nonblocking_stream(), b = nonblocking_stream(),
                 c = nonblocking_stream();
    write_k<<<GRID, 0, a>>>(d, N);
    CHECK(cudaLaunchHostFunc(c, give_back, d));
    float *p = take();
    read_k<<<GRID, 0, b>>>(p, N); // expect: stream-race
    CHECK(cudaStreamSynchronize(b));
    CHECK(cudaStreamSynchronize(a));
    CHECK(cudaFree(d));
    std::printf("hostfn_wrong_stream: done\n");
    return 0;
}

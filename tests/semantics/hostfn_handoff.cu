// hostfn_handoff.cu - correct, by an order cudalens sees only in part (the
// pattern of XLA's stream executor, which returns a staging buffer to its
// pool from a host function): a host function enqueued after the write on
// stream A puts the buffer into a pool (mutex, condition variable); the
// main thread takes it from the pool and reads it on stream B.  The host
// function ran once A's write completed ([API] cudaLaunchHostFunc), so its
// thread knew; the main thread learned it through the pool, a handoff
// cudalens cannot see: a warning (thread-handoff-race) that explains
// this, never an error.  hostfn_wrong_stream.cu is the bug.
// rule: HOST_FUNC HOST_HANDOFF
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
    cudaStream_t a = nonblocking_stream(), b = nonblocking_stream();
    write_k<<<GRID, 0, a>>>(d, N);
    CHECK(cudaLaunchHostFunc(a, give_back, d));
    float *p = take();
    read_k<<<GRID, 0, b>>>(p, N); // expect: thread-handoff-race
    CHECK(cudaStreamSynchronize(b));
    CHECK(cudaStreamSynchronize(a));
    CHECK(cudaFree(d));
    std::printf("hostfn_handoff: done\n");
    return 0;
}

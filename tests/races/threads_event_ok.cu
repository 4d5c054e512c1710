// threads_event_ok.cu - CORRECT twin of threads_shared: thread A records
// an event after its write, thread B's stream waits for it (an event
// recorded by one thread can be waited for by another).
// rule: EVENT_RECORD STREAM_WAIT_EVENT
#include <pthread.h>
#include "races.h"

static float *d;
static cudaEvent_t written;
static pthread_barrier_t bar;

static void *thread_a(void *)
{
    cudaStream_t s = nonblocking_stream();
    pthread_barrier_wait(&bar);
    write_k<<<GRID, 0, s>>>(d, N);
    CHECK(cudaEventRecord(written, s));
    pthread_barrier_wait(&bar);
    CHECK(cudaStreamSynchronize(s));
    return nullptr;
}

static void *thread_b(void *)
{
    cudaStream_t s = nonblocking_stream();
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
    CHECK(cudaStreamWaitEvent(s, written, 0));
    read_k<<<GRID, 0, s>>>(d, N);
    CHECK(cudaStreamSynchronize(s));
    return nullptr;
}

int main()
{
    d = dalloc();
    CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
    CHECK(cudaDeviceSynchronize());
    pthread_barrier_init(&bar, nullptr, 2);
    pthread_t a, b;
    pthread_create(&a, nullptr, thread_a, nullptr);
    pthread_create(&b, nullptr, thread_b, nullptr);
    pthread_join(a, nullptr);
    pthread_join(b, nullptr);
    CHECK(cudaFree(d));
    std::printf("threads_event_ok: done\n");
    return 0;
}

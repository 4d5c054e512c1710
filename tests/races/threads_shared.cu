// threads_shared.cu - BUG: two host threads, each with its own stream,
// share a buffer: thread A writes it, thread B reads it, and nothing on the
// CUDA side orders B's read after A's write (the pthread barrier orders the
// launches, not the GPU work).
// rule: HOST_HANDOFF
#include <pthread.h>
#include "races.h"

static float *d;
static pthread_barrier_t bar;

static void *thread_a(void *)
{
    cudaStream_t s = nonblocking_stream();
    pthread_barrier_wait(&bar);
    write_k<<<GRID, 0, s>>>(d, N);
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
    CHECK(cudaStreamSynchronize(s));
    return nullptr;
}

static void *thread_b(void *)
{
    cudaStream_t s = nonblocking_stream();
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
    read_k<<<GRID, 0, s>>>(d, N); // expect: stream-race
    pthread_barrier_wait(&bar);
    CHECK(cudaStreamSynchronize(s));
    return nullptr;
}

int main()
{
    d = dalloc();
    CHECK(cudaDeviceSynchronize());
    pthread_barrier_init(&bar, nullptr, 2);
    pthread_t a, b;
    pthread_create(&a, nullptr, thread_a, nullptr);
    pthread_create(&b, nullptr, thread_b, nullptr);
    pthread_join(a, nullptr);
    pthread_join(b, nullptr);
    CHECK(cudaFree(d));
    std::printf("threads_shared: done\n");
    return 0;
}

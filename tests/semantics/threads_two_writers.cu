// threads_two_writers.cu - BUG: two host threads, each with its own
// non-blocking stream, launch kernels that write the same device buffer;
// both launches are issued before either thread synchronizes, so nothing
// orders the two writes.  (With the same kernel on both sides the report
// is the shared-argument-race warning; different kernels: stream-race.)
// rule: THREAD_CREATE_JOIN
#include <pthread.h>
#include "races.h"

static float *d, *e;
static pthread_barrier_t bar;

static void *writer(void *arg)
{
    cudaStream_t s = nonblocking_stream();
    pthread_barrier_wait(&bar);
    if (arg)
        write_k<<<GRID, 0, s>>>(d, N);
    pthread_barrier_wait(&bar);
    if (!arg)
        add_k<<<GRID, 0, s>>>(d, e, N); // expect: stream-race
    pthread_barrier_wait(&bar);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return nullptr;
}

int main()
{
    d = dalloc();
    e = dalloc();
    CHECK(cudaDeviceSynchronize());
    pthread_barrier_init(&bar, nullptr, 2);
    pthread_t a, b;
    pthread_create(&a, nullptr, writer, (void *)1);
    pthread_create(&b, nullptr, writer, nullptr);
    pthread_join(a, nullptr);
    pthread_join(b, nullptr);
    CHECK(cudaFree(d));
    CHECK(cudaFree(e));
    std::printf("threads_two_writers: done\n");
    return 0;
}

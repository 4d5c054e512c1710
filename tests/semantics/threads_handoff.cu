// threads_handoff.cu - correct, by an order cudalens cannot see: thread A
// writes on its stream and synchronizes it, then hands over to thread B
// through a barrier, and B reads on its own stream.  A pthread barrier is
// not recorded, so the analysis cannot tell that B's launch came after A's
// synchronization: a warning (thread-handoff-race) that explains this,
// never an error.  The difference with races/threads_shared (a bug) is the
// synchronization before the handoff.
// rule: HOST_HANDOFF
#include <pthread.h>
#include "races.h"

static float *d;
static pthread_barrier_t bar;

static void *thread_a(void *)
{
    cudaStream_t s = nonblocking_stream();
    write_k<<<GRID, 0, s>>>(d, N);
    CHECK(cudaStreamSynchronize(s));
    pthread_barrier_wait(&bar);
    return nullptr;
}

static void *thread_b(void *)
{
    cudaStream_t s = nonblocking_stream();
    pthread_barrier_wait(&bar);
    read_k<<<GRID, 0, s>>>(d, N); // expect: thread-handoff-race
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
    std::printf("threads_handoff: done\n");
    return 0;
}

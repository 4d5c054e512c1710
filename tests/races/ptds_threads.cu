// ptds_threads.cu - BUG: two threads use their per-thread default streams
// (cudaStreamPerThread); those are separate streams, not ordered with each
// other, so B's read races with A's write.
// rule: PER_THREAD_STREAM
#include <pthread.h>
#include "races.h"

static float *d;
static pthread_barrier_t bar;

static void *thread_a(void *)
{
    CHECK(cudaSetDevice(0));
    pthread_barrier_wait(&bar);
    write_k<<<GRID, 0, cudaStreamPerThread>>>(d, N);
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    return nullptr;
}

static void *thread_b(void *)
{
    CHECK(cudaSetDevice(0));
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
    read_k<<<GRID, 0, cudaStreamPerThread>>>(d, N); // expect: stream-race
    pthread_barrier_wait(&bar);
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
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
    std::printf("ptds_threads: done\n");
    return 0;
}

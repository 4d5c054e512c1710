// threads_join_ok.cu - the twin of threads_two_writers: the first thread
// synchronizes its stream and is joined before the second is created, so
// the second write is ordered after the first (pthread_join and
// pthread_create order the host threads; the stream synchronization makes
// the first write known complete).
// rule: THREAD_CREATE_JOIN
#include <pthread.h>
#include "races.h"

static float *d;

static void *writer(void *)
{
    cudaStream_t s = nonblocking_stream();
    write_k<<<GRID, 0, s>>>(d, N);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return nullptr;
}

int main()
{
    d = dalloc();
    CHECK(cudaDeviceSynchronize());
    pthread_t a, b;
    pthread_create(&a, nullptr, writer, nullptr);
    pthread_join(a, nullptr);
    pthread_create(&b, nullptr, writer, nullptr);
    pthread_join(b, nullptr);
    CHECK(cudaFree(d));
    std::printf("threads_join_ok: done\n");
    return 0;
}

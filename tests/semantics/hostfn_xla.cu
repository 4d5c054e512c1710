// hostfn_xla.cu - correct, the way XLA's stream executor (JAX) moves NumPy
// batches: through the driver API, one pinned staging buffer goes round a
// pool.  Each step the main thread takes it from the pool, fills it, copies
// it to the device on one stream and enqueues a host function
// (cuLaunchHostFunc) that puts it back into the pool once the copy is
// done; the next step's device-to-host result lands in it on the other
// stream.  The host function's thread knew the copy was done; the main
// thread learned it through the pool (a handoff cudalens cannot see): a
// warning, never an error, and the host's own writes of the buffer are
// not host-write-before-sync.
// rule: HOST_FUNC HOST_HANDOFF
// link: -lcuda
#include <cuda.h>
#include <pthread.h>
#include "races.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static float *pool;

static void CUDA_CB give_back(void *buf)
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
    float *d = dalloc(), *stage;
    CHECK(cudaMallocHost(&stage, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    cudaStream_t h2d = nonblocking_stream(), d2h = nonblocking_stream();
    pool = stage;
    double sum = 0;
    for (int step = 0; step < 3; step++) {
        float *p = take();
        for (int i = 0; i < N; i++)
            p[i] = (float)step;
        if (cuMemcpyHtoDAsync((CUdeviceptr)d, p, N * sizeof(float), (CUstream)h2d)) // expect: thread-handoff-race
            return 1;
        if (cuLaunchHostFunc((CUstream)h2d, give_back, p))
            return 1;
        p = take();
        if (cuMemcpyDtoHAsync(p, (CUdeviceptr)d, N * sizeof(float), (CUstream)d2h)) // expect: thread-handoff-race
            return 1;
        if (cuLaunchHostFunc((CUstream)d2h, give_back, p))
            return 1;
        p = take();
        sum += p[N - 1];
        pool = p;
    }
    CHECK(cudaStreamSynchronize(h2d));
    CHECK(cudaStreamSynchronize(d2h));
    CHECK(cudaFreeHost(stage));
    CHECK(cudaFree(d));
    std::printf("hostfn_xla: %g\n", sum);
    return 0;
}

// nvtx_names.cu - BUG: a thread the program named "loader" through NVTX
// writes a buffer on a stream named "upload", and the main thread (named
// "main") reads it on a stream named "compute" with nothing on the CUDA side
// ordering the two (the barrier orders the launches, not the GPU work).
// The report must call the streams and threads by these names
// (tests/races/nvtx_names.test); the char and the wchar_t naming functions
// of the runtime and of the driver API are all used.
// rule: HOST_HANDOFF
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCuda.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include "races.h"

static float *d;
static cudaStream_t upload, compute;
static pthread_barrier_t bar;

static uint32_t tid() { return (uint32_t)syscall(SYS_gettid); }

static void *loader(void *)
{
    nvtxNameOsThreadW(tid(), L"loader");
    write_k<<<GRID, 0, upload>>>(d, N);
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
    CHECK(cudaStreamSynchronize(upload));
    return nullptr;
}

int main()
{
    nvtxNameOsThreadA(tid(), "main");
    d = dalloc();
    CHECK(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    nvtxNameCudaStreamA(upload, "upload");
    nvtxNameCuStreamW((CUstream)compute, L"compute");
    CHECK(cudaDeviceSynchronize());
    pthread_barrier_init(&bar, nullptr, 2);
    pthread_t t;
    pthread_create(&t, nullptr, loader, nullptr);
    pthread_barrier_wait(&bar);
    read_k<<<GRID, 0, compute>>>(d, N); // expect: stream-race
    pthread_barrier_wait(&bar);
    CHECK(cudaStreamSynchronize(compute));
    pthread_join(t, nullptr);
    CHECK(cudaFree(d));
    std::printf("nvtx_names: done\n");
    return 0;
}

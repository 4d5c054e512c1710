// managed_async.cu - sample app: cudaMallocManaged, stream-ordered
// cudaMallocAsync/cudaFreeAsync, cudaLaunchHostFunc, cudaStreamAddCallback.
#include "common.h"

__global__ void twice(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 2;
}

static int host_calls;

static void host_fn(void *arg)
{
    host_calls += *(int *)arg;
}

static void CUDART_CB stream_cb(cudaStream_t, cudaError_t status, void *arg)
{
    if (status == cudaSuccess)
        host_calls += *(int *)arg;
}

int main()
{
    const int n = 1000;
    int *m = nullptr;
    CHECK(cudaMallocManaged(&m, n * sizeof(int)));
    for (int i = 0; i < n; i++)
        m[i] = i;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *tmp = nullptr;
    CHECK(cudaMallocAsync(&tmp, n * sizeof(int), s));
    CHECK(cudaMemcpyAsync(tmp, m, n * sizeof(int), cudaMemcpyDefault, s));
    twice<<<(n + 127) / 128, 128, 0, s>>>(tmp, n);
    CHECK(cudaMemcpyAsync(m, tmp, n * sizeof(int), cudaMemcpyDefault, s));
    CHECK(cudaFreeAsync(tmp, s));
    int one = 1, ten = 10;
    CHECK(cudaLaunchHostFunc(s, host_fn, &one));
    CHECK(cudaStreamAddCallback(s, stream_cb, &ten, 0));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(host_calls == 11);
    std::printf("managed_async: ok (m[3]=%d)\n", m[3]);
    CHECK(cudaFree(m));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

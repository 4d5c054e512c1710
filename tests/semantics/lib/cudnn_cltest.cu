// cudnn_cltest.cu - a stand-in for one of NVIDIA's closed libraries built
// on CUDA (cuDNN, cuBLAS), built as libcudnn_cltest.so so that cudalens
// takes its code for such a library's (analyzer/sites/callsite.c): like
// cudnnCreate, cltest_create() makes a non-blocking stream of its own and
// zeroes a work buffer on it, never synchronizing that stream; like a cuDNN
// batch-norm call, cltest_run() launches a kernel that uses the buffer on
// the stream the program gave.  cltest_create_on() zeroes it on a stream
// the program gave instead (cudnnSetStream before the setup).
#include <cuda_runtime.h>

static cudaStream_t own;
static int *work;

__global__ void cltest_kernel(int *w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        w[i] += 1;
}

extern "C" int cltest_create(void)
{
    if (cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc(&work, 1024 * sizeof(int)) != cudaSuccess)
        return -1;
    return cudaMemsetAsync(work, 0, 1024 * sizeof(int), own) == cudaSuccess ? 0 : -1;
}

extern "C" int cltest_create_on(cudaStream_t s)
{
    if (cudaMalloc(&work, 1024 * sizeof(int)) != cudaSuccess)
        return -1;
    return cudaMemsetAsync(work, 0, 1024 * sizeof(int), s) == cudaSuccess ? 0 : -1;
}

extern "C" int cltest_run(cudaStream_t s)
{
    cltest_kernel<<<4, 256, 0, s>>>(work, 1024);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

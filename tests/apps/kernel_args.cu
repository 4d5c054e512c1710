// kernel_args.cu - sample app: kernels taking float*, const float*, an int,
// and a by-value struct holding two device pointers (its parameter layout is
// what cuFuncGetParamInfo must report: 8, 8, 4 and a 16-byte struct); and
// one taking 1,100 pointers in an 8,800-byte struct, more than a launch's
// record keeps (1,088: the rest are counted as not kept).
#include "common.h"

struct Pair {
    float *out;
    const float *in;
};

__global__ void saxpy(float *y, const float *x, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += a * x[i];
}

__global__ void copy_pair(Pair p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p.out[i] = p.in[i];
}

__global__ void mixed(float *y, const float *x, int n, Pair p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] + p.in[i];
}

#define WIDE 1100

struct Wide {
    const float *p[WIDE];
};

__global__ void wide(Wide w, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = w.p[i % WIDE][0];
}

int main()
{
    const int n = 512;
    float *x = nullptr, *y = nullptr, *z = nullptr;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&z, n * sizeof(float)));
    CHECK(cudaMemset(x, 0, n * sizeof(float)));
    CHECK(cudaMemset(y, 0, n * sizeof(float)));
    saxpy<<<2, 256>>>(y, x, n, 2.0f);
    copy_pair<<<2, 256>>>(Pair{ z, y }, n);
    mixed<<<2, 256>>>(z, x, n, Pair{ y, x });
    static Wide w;
    for (int k = 0; k < WIDE; k++)
        w.p[k] = x + k % n;
    wide<<<2, 256>>>(w, z, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(z));
    std::printf("kernel_args: ok\n");
    return 0;
}

// basic.cu - sample app: cudaMalloc, H2D and D2H cudaMemcpy, one kernel,
// cudaDeviceSynchronize, cudaFree.
#include "common.h"

__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}

int main()
{
    const int n = 1024;
    float h[n];
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    float *d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    add_one<<<(n + 255) / 256, 256>>>(d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float back[n];
    CHECK(cudaMemcpy(back, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    // on a GPU the kernel ran: back[i] == i + 1; the simulator runs no kernels
    EXPECT(back[10] == 11.0f || back[10] == 10.0f);
    std::printf("basic: ok (%s)\n", back[10] == 11.0f ? "kernel ran" : "kernel simulated");
    return 0;
}

// driver_kernels.cu - device code for driver_api.cpp, compiled on its own into
// a fatbin (nvcc -fatbin --no-compress) that driver_api.cpp embeds and loads
// with cuModuleLoadData.  (The kernels' order matters to tests/capture/unload.cpp,
// which needs the simulator to give scale_span the handle scale had.)
struct Span {
    float *data;
    int n;
};

extern "C" __global__ void scale(float *x, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= k;
}

// NCCL's way: one parameter declared larger than a launch fills (its 4 KiB
// structure), given in a buffer as long as the part the kernel reads
struct Args4K {
    float *x;
    float k;
    int n;
    unsigned char unused[4080];
};

extern "C" __global__ void scale_args(Args4K a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.n)
        a.x[i] *= a.k;
}

__global__ void scale_span(Span s, float k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < s.n)
        s.data[i] *= k;
}


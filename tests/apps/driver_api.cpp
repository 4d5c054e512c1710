// driver_api.cpp - sample app using the driver API only, host code (built with
// -cudart none, linked with -lcuda): primary context, module loaded from an
// embedded fatbin (driver_kernels.cu), cuLaunchKernel (its parameters as an
// array, and in one buffer: extra, also one shorter than the parameter it
// starts, as NCCL gives its own), cuMemcpy*, a stream, cuStreamSynchronize,
// cuCtxSynchronize.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "driver_kernels_fatbin.h"  // generated: driver_kernels_fatbin[]

#define CU(call)                                                                  \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char *s_ = "?";                                                 \
            cuGetErrorName(r_, &s_);                                              \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,    \
                         #call, s_);                                              \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

struct Span {
    float *data;
    int n;
};

int main()
{
    CU(cuInit(0));
    CUdevice dev;
    CU(cuDeviceGet(&dev, 0));
    char name[128];
    CU(cuDeviceGetName(name, sizeof name, dev));
    CUcontext ctx;
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CU(cuModuleLoadData(&mod, driver_kernels_fatbin));
    CUfunction scale, scale_span, scale_args;
    CU(cuModuleGetFunction(&scale, mod, "scale"));
    CU(cuModuleGetFunction(&scale_args, mod, "scale_args"));
    CU(cuModuleGetFunction(&scale_span, mod, "_Z10scale_span4Spanf"));

    const int n = 1024;
    float h[n];
    for (int i = 0; i < n; i++)
        h[i] = 1.0f;
    CUdeviceptr d;
    CU(cuMemAlloc(&d, sizeof h));
    CU(cuMemcpyHtoD(d, h, sizeof h));
    CUstream s;
    CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    float k = 3.0f;
    int nn = n;
    void *args[] = { &d, &k, &nn };
    CU(cuLaunchKernel(scale, n / 256, 1, 1, 256, 1, 1, 0, s, args, nullptr));
    Span span = { (float *)d, n };
    void *args2[] = { &span, &k };
    CU(cuLaunchKernel(scale_span, n / 256, 1, 1, 256, 1, 1, 0, s, args2, nullptr));
    // scale's parameters in one buffer, each at its offset (x 0, k 8, n 12)
    unsigned char packed[16];
    size_t packed_size = sizeof packed;
    std::memcpy(packed, &d, 8);
    std::memcpy(packed + 8, &k, 4);
    std::memcpy(packed + 12, &nn, 4);
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
                      &packed_size, CU_LAUNCH_PARAM_END };
    CU(cuLaunchKernel(scale, n / 256, 1, 1, 256, 1, 1, 0, s, nullptr, extra));
    // the same 16 bytes as the first 16 of scale_args's 4 KiB parameter
    CU(cuLaunchKernel(scale_args, n / 256, 1, 1, 256, 1, 1, 0, s, nullptr, extra));
    CU(cuStreamSynchronize(s));
    CU(cuMemcpyDtoH(h, d, sizeof h));
    CU(cuCtxSynchronize());
    CU(cuStreamDestroy(s));
    CU(cuMemFree(d));
    CU(cuModuleUnload(mod));
    CU(cuDevicePrimaryCtxRelease(dev));
    std::printf("driver_api: ok on %s (h[0]=%g)\n", name, h[0]);
    return 0;
}

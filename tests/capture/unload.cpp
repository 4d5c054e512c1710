// unload.cpp - a kernel's handle reused after its module is unloaded, as
// XLA's autotuner makes it happen by the hundred: module A's `scale` (three
// parameters) is launched, A is unloaded, module B (the same image) is
// loaded and its `scale_span` (two parameters) gets the handle `scale` had.
// Its argument array ends at a page that cannot be read, so a recorder that
// read B's launch with A's layout (one argument too many) crashes the
// program.  Prints "reused" when the handle was reused (the test needs it)
// and the data, which must be the same with and without the shim.
#include <cuda.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "driver_kernels_fatbin.h"  // generated: driver_kernels_fatbin[]

#define CU(call)                                                              \
    do {                                                                      \
        CUresult r_ = (call);                                                 \
        if (r_ != CUDA_SUCCESS) {                                             \
            std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, \
                         #call, (int)r_);                                     \
            std::exit(1);                                                     \
        }                                                                     \
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
    CUcontext ctx;
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    const int n = 256;
    CUdeviceptr d;
    CU(cuMemAlloc(&d, n * sizeof(float)));
    float k = 2.0f;
    int nn = n;

    CUmodule a;
    CUfunction scale;
    CU(cuModuleLoadData(&a, driver_kernels_fatbin));
    CU(cuModuleGetFunction(&scale, a, "scale"));
    void *args[] = { &d, &k, &nn };
    CU(cuLaunchKernel(scale, 1, 1, 1, n, 1, 1, 0, 0, args, nullptr));
    CU(cuCtxSynchronize());
    CU(cuModuleUnload(a));

    CUmodule b;
    CUfunction scale_span;
    CU(cuModuleLoadData(&b, driver_kernels_fatbin));
    CU(cuModuleGetFunction(&scale_span, b, "_Z10scale_span4Spanf"));
    std::printf("%s\n", scale_span == scale ? "reused" : "not reused");
    // the two argument pointers end where an unreadable page begins
    long page = sysconf(_SC_PAGESIZE);
    char *two = (char *)mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (two == MAP_FAILED || mprotect(two + page, page, PROT_NONE))
        return 1;
    void **args2 = (void **)(two + page) - 2;
    Span span = { (float *)d, n };
    args2[0] = &span;
    args2[1] = &k;
    CU(cuLaunchKernel(scale_span, 1, 1, 1, n, 1, 1, 0, 0, args2, nullptr));
    CU(cuCtxSynchronize());
    CU(cuModuleUnload(b));
    CU(cuMemFree(d));
    std::printf("done\n");
    return 0;
}

/* sim_cudart_launch.c - TEST DOUBLE for CI: what nvcc-generated code calls
 * in the simulated libcudart.so.13 (__cudaRegisterFatBinary & co.,
 * __cudaPush/PopCallConfiguration, __cudaGetKernel, __cudaLaunchKernel) and
 * cudaLaunchKernel, cudaFuncGet*.
 *
 * As CUPTI does with nvcc 13, a <<<>>> launch (__cudaLaunchKernel) is
 * reported under CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 with
 * cudaLaunchKernel_v7000_params (func = the cudaKernel_t handle) and
 * symbolName = the mangled kernel name; the nested driver call is
 * cuLaunchKernel whose `f` is the CUkernel (= the cudaKernel_t), as measured
 * on CUDA 13: cuFuncGetParamInfo/cuFuncGetName on it fail with
 * CUDA_ERROR_INVALID_HANDLE, cuKernelGetParamInfo/cuKernelGetName/
 * cuKernelGetFunction work.  Driver-API programs pass real CUfunctions.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sim_cudart.h"

struct fatbin_handle { void *slot; struct clsim_module *module; };
struct host_fn { const void *host; struct clsim_func *func; struct host_fn *next; };

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct host_fn *g_fns;

#define CONFIG_DEPTH 8
struct config { dim3 grid, block; size_t shmem; void *stream; };
static __thread struct config t_cfg[CONFIG_DEPTH];
static __thread int t_ncfg;

void **__cudaRegisterFatBinary(void *fatCubin)
{
    struct fatbin_handle *h = calloc(1, sizeof *h);
    h->module = clsimdrv_module_load(fatCubin);
    return (void **)h;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle;
}

void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    (void)fatCubinHandle;  /* kernels stay known: tools may look them up late */
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize)
{
    struct fatbin_handle *h = (struct fatbin_handle *)fatCubinHandle;
    struct host_fn *e = calloc(1, sizeof *e);
    (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    e->host = hostFun;
    e->func = clsimdrv_module_func(h->module, deviceName, 1);
    pthread_mutex_lock(&g_lock);
    e->next = g_fns;
    g_fns = e;
    pthread_mutex_unlock(&g_lock);
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global)
{
    (void)fatCubinHandle, (void)hostVar, (void)deviceAddress, (void)deviceName, (void)ext;
    (void)size, (void)constant, (void)global;
}

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                              char *deviceAddress, const char *deviceName, int ext, size_t size,
                              int constant, int global)
{
    (void)fatCubinHandle, (void)hostVarPtrAddress, (void)deviceAddress, (void)deviceName;
    (void)ext, (void)size, (void)constant, (void)global;
}

char __cudaInitModule(void **fatCubinHandle)
{
    (void)fatCubinHandle;
    return 1;
}

struct clsim_func *rt_func(const void *func)
{
    const struct clsim_kernel *k = func;
    struct clsim_func *f = NULL;
    if (!func)
        return NULL;
    pthread_mutex_lock(&g_lock);
    for (struct host_fn *e = g_fns; e; e = e->next)
        if (e->host == func) {
            f = e->func;
            break;
        }
    pthread_mutex_unlock(&g_lock);
    if (!f && k->magic == CLSIM_MAGIC_KERNEL)  /* a cudaKernel_t */
        f = k->func;
    return f;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    struct clsim_func *f = rt_func(hostFun);
    if (!kernel)
        return cudaErrorInvalidValue;
    if (!f)
        return cudaErrorInvalidDeviceFunction;
    *kernel = (cudaKernel_t)&f->kernel;
    return cudaSuccess;
}

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream)
{
    if (t_ncfg >= CONFIG_DEPTH)
        return 1;
    t_cfg[t_ncfg++] = (struct config){ gridDim, blockDim, sharedMem, stream };
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream)
{
    if (t_ncfg <= 0)
        return cudaErrorMissingConfiguration;
    struct config *c = &t_cfg[--t_ncfg];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->shmem;
    *(void **)stream = c->stream;
    return cudaSuccess;
}

static cudaError_t launch(struct clsim_func *f, dim3 g, dim3 b, void **args, size_t shmem,
                          cudaStream_t stream)
{
    if (!f)
        return cudaErrorInvalidDeviceFunction;
    /* like cudart 13: the CUkernel handle, not a CUfunction */
    CUresult r = cuLaunchKernel((CUfunction)&f->kernel, g.x, g.y, g.z, b.x, b.y, b.z,
                                (unsigned)shmem, (CUstream)stream, args, NULL);
    if (r == CUDA_ERROR_INVALID_VALUE)
        return cudaErrorInvalidConfiguration;
    return CU2RT(r);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream)
{
    struct clsim_func *f = rt_func(func);
    cudaLaunchKernel_v7000_params p = { func, gridDim, blockDim, args, sharedMem, stream };
    RT_ENTER_P(cudaLaunchKernel_v7000, "cudaLaunchKernel", &p, f ? f->name : NULL);
    RT_NEED_CTX();
    RT_RETURN(launch(f, gridDim, blockDim, args, sharedMem, stream));
}

/* nvcc 13's <<<>>>: reported as cudaLaunchKernel, as real CUPTI does */
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream)
{
    struct clsim_func *f = rt_func(kernel);
    cudaLaunchKernel_v7000_params p = { kernel, gridDim, blockDim, args, sharedMem, stream };
    RT_ENTER_P(cudaLaunchKernel_v7000, "cudaLaunchKernel", &p, f ? f->name : NULL);
    RT_NEED_CTX();
    RT_RETURN(launch(f, gridDim, blockDim, args, sharedMem, stream));
}

/* --default-stream per-thread builds */
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                    void **args, size_t sharedMem, cudaStream_t stream)
{
    struct clsim_func *f = rt_func(kernel);
    cudaLaunchKernel_ptsz_v7000_params p = { kernel, gridDim, blockDim, args, sharedMem, stream };
    RT_ENTER_P(cudaLaunchKernel_ptsz_v7000, "cudaLaunchKernel_ptsz", &p, f ? f->name : NULL);
    RT_NEED_CTX();
    if (!stream)
        stream = cudaStreamPerThread;
    RT_RETURN(launch(f, gridDim, blockDim, args, sharedMem, stream));
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    RT_ENTER(cudaFuncGetAttributes_v3020, "cudaFuncGetAttributes", attr, func);
    struct clsim_func *f = rt_func(func);
    RT_NEED_CTX();
    if (!attr)
        RT_RETURN(cudaErrorInvalidValue);
    if (!f)
        RT_RETURN(cudaErrorInvalidDeviceFunction);
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = 16;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    RT_RETURN(cudaSuccess);
}

cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    RT_ENTER(cudaFuncGetName_v12030, "cudaFuncGetName", name, func);
    struct clsim_func *f = rt_func(func);
    if (!name)
        RT_RETURN(cudaErrorInvalidValue);
    if (!f)
        RT_RETURN(cudaErrorInvalidDeviceFunction);
    *name = f->name;
    RT_RETURN(cudaSuccess);
}

cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
                                 size_t *paramSize)
{
    RT_ENTER(cudaFuncGetParamInfo_v12040, "cudaFuncGetParamInfo", func, paramIndex, paramOffset,
             paramSize);
    struct clsim_func *f = rt_func(func);
    if (!f)
        RT_RETURN(cudaErrorInvalidDeviceFunction);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuFuncGetParamInfo((CUfunction)f, paramIndex, paramOffset, paramSize)));
}

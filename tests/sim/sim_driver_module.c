/* sim_driver_module.c - TEST DOUBLE for CI: modules, functions and kernel
 * launches of the simulated libcuda.so.1.  Kernels do not run (there is no
 * device code); a launch takes ~2 us of simulated GPU time on its stream
 * (CUDALENS_SIM_KERNEL_NS=N: N ns, for tests that need a busy GPU) and
 * produces a CUpti_ActivityKernel10 record (CONCURRENT_KERNEL, or
 * KERNEL if only that kind is enabled).  Parameter layouts come from the
 * cubin (sim_fatbin.c).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "sim_driver.h"

static int64_t g_next_grid = 1;

/* simulated GPU time of one launch: CUDALENS_SIM_KERNEL_NS, default 2 us */
static uint64_t kernel_ns(void)
{
    static uint64_t ns;
    if (!ns) {
        const char *e = getenv("CUDALENS_SIM_KERNEL_NS");
        long long v = e ? atoll(e) : 0;
        ns = v > 0 ? (uint64_t)v : 2000;
    }
    return ns;
}

struct clsim_module *clsimdrv_module_load(const void *image)
{
    return clsim_fatbin_parse(image);
}

static struct clsim_module *mod_check(CUmodule h)
{
    struct clsim_module *m = (struct clsim_module *)h;
    return m && m->magic == CLSIM_MAGIC_MODULE ? m : NULL;
}

static struct clsim_func *func_check(CUfunction h)
{
    struct clsim_func *f = (struct clsim_func *)h;
    return f && f->magic == CLSIM_MAGIC_FUNC ? f : NULL;
}

static struct clsim_func *kernel_check(CUkernel h)
{
    struct clsim_kernel *k = (struct clsim_kernel *)h;
    return k && k->magic == CLSIM_MAGIC_KERNEL ? k->func : NULL;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    DRV_ENTER(cuModuleLoadData, NULL, module, image);
    if (!drv_ctx())
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!module || !image)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *module = (CUmodule)clsimdrv_module_load(image);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    DRV_ENTER(cuModuleLoadFatBinary, NULL, module, fatCubin);
    if (!drv_ctx())
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!module || !fatCubin)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *module = (CUmodule)clsimdrv_module_load(fatCubin);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuModuleUnload(CUmodule hmod)
{
    DRV_ENTER(cuModuleUnload, NULL, hmod);
    struct clsim_module *m = mod_check(hmod);
    if (!m)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    CUpti_ResourceData rd;
    memset(&rd, 0, sizeof rd);
    rd.context = (CUcontext)drv_ctx();
    clsim_raise(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING, &rd);
    m->magic = 0;
    clsimdrv_module_release(m);  /* its function handles are reused */
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    DRV_ENTER(cuModuleGetFunction, NULL, hfunc, hmod, name);
    struct clsim_module *m = mod_check(hmod);
    struct clsim_func *f;
    if (!m)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!hfunc || !name)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!(f = clsimdrv_module_func(m, name, 0)))
        DRV_RETURN(CUDA_ERROR_NOT_FOUND);
    *hfunc = (CUfunction)f;
    DRV_RETURN(CUDA_SUCCESS);
}

static CUresult param_info(struct clsim_func *f, size_t i, size_t *off, size_t *size)
{
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    if (f->nparams < 0)
        return CUDA_ERROR_NOT_SUPPORTED;  /* no cubin to read it from */
    if (i >= (size_t)f->nparams)
        return CUDA_ERROR_INVALID_VALUE;
    if (off)
        *off = f->params[i].offset;
    if (size)
        *size = f->params[i].size;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                            size_t *paramSize)
{
    DRV_ENTER(cuFuncGetParamInfo, NULL, func, paramIndex, paramOffset, paramSize);
    DRV_RETURN(param_info(func_check(func), paramIndex, paramOffset, paramSize));
}

CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
                              size_t *paramSize)
{
    DRV_ENTER(cuKernelGetParamInfo, NULL, kernel, paramIndex, paramOffset, paramSize);
    DRV_RETURN(param_info(kernel_check(kernel), paramIndex, paramOffset, paramSize));
}

CUresult cuFuncGetName(const char **name, CUfunction hfunc)
{
    DRV_ENTER(cuFuncGetName, NULL, name, hfunc);
    struct clsim_func *f = func_check(hfunc);
    if (!name)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!f)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    *name = f->name;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuKernelGetName(const char **name, CUkernel hfunc)
{
    DRV_ENTER(cuKernelGetName, NULL, name, hfunc);
    struct clsim_func *f = kernel_check(hfunc);
    if (!name)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!f)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    *name = f->name;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    DRV_ENTER(cuKernelGetFunction, NULL, pFunc, kernel);
    struct clsim_func *f = kernel_check(kernel);
    if (!pFunc)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!f)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    *pFunc = (CUfunction)f;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    DRV_ENTER(cuFuncGetAttribute, NULL, pi, attrib, hfunc);
    struct clsim_func *f = func_check(hfunc);
    if (!pi)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!f)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 16; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
    default: *pi = 0; break;
    }
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                        void **kernelParams, void **extra)
{
    /* accepts a CUfunction or a CUkernel, as the real driver does */
    struct clsim_func *fn = func_check(f) ? func_check(f) : kernel_check((CUkernel)f);
    DRV_ENTER(cuLaunchKernel, fn ? fn->name : NULL, f, gridDimX, gridDimY, gridDimZ, blockDimX,
              blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
    struct sim_ctx *c = drv_ctx();
    struct sim_stream *s;
    if (!c)
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!fn)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!(s = drv_stream(hStream)))
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!gridDimX || !gridDimY || !gridDimZ || !blockDimX || !blockDimY || !blockDimZ ||
        (uint64_t)blockDimX * blockDimY * blockDimZ > 1024)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (fn->nparams > 0 && !kernelParams && !extra)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (s->cap) { /* captured into a graph, not run */
        struct sim_gnode *node = drv_capture_node(s, CU_GRAPH_NODE_TYPE_KERNEL);
        if (!node)
            DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
        node->k = (CUDA_KERNEL_NODE_PARAMS){ .func = f, .gridDimX = gridDimX,
            .gridDimY = gridDimY, .gridDimZ = gridDimZ, .blockDimX = blockDimX,
            .blockDimY = blockDimY, .blockDimZ = blockDimZ,
            .sharedMemBytes = sharedMemBytes };
        drv_kernel_node_args(node, fn, kernelParams);
        DRV_RETURN(CUDA_SUCCESS);
    }
    DRV_RETURN(drv_kernel(fn, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                          sharedMemBytes, s));
}

struct clsim_func *drv_func_of(void *f)
{
    return func_check((CUfunction)f) ? func_check((CUfunction)f) : kernel_check((CUkernel)f);
}

CUresult drv_kernel(struct clsim_func *fn, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ,
                    unsigned blockDimX, unsigned blockDimY, unsigned blockDimZ,
                    unsigned sharedMemBytes, struct sim_stream *s)
{
    struct sim_ctx *c = s->ctx;
    uint64_t st, en;
    drv_schedule(s, kernel_ns(), &st, &en);
    CUpti_ActivityKind kind = clsim_activity_wanted(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
                                  ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
                                  : clsim_activity_wanted(CUPTI_ACTIVITY_KIND_KERNEL)
                                        ? CUPTI_ACTIVITY_KIND_KERNEL
                                        : CUPTI_ACTIVITY_KIND_INVALID;
    if (kind != CUPTI_ACTIVITY_KIND_INVALID) {
        CUpti_ActivityKernel10 r;
        memset(&r, 0, sizeof r);
        r.kind = kind;
        r.registersPerThread = 16;
        r.start = st;
        r.end = en;
        r.completed = en;
        r.deviceId = (uint32_t)c->device;
        r.contextId = c->uid;
        r.streamId = s->id;
        r.gridX = (int32_t)gridDimX;
        r.gridY = (int32_t)gridDimY;
        r.gridZ = (int32_t)gridDimZ;
        r.blockX = (int32_t)blockDimX;
        r.blockY = (int32_t)blockDimY;
        r.blockZ = (int32_t)blockDimZ;
        r.dynamicSharedMemory = (int32_t)sharedMemBytes;
        r.correlationId = clsim_work_correlation();
        r.gridId = __atomic_fetch_add(&g_next_grid, 1, __ATOMIC_RELAXED);
        r.name = fn->name;
        r.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
        clsim_activity_add(&r, sizeof r);
    }
    return CUDA_SUCCESS;
}

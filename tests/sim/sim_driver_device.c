/* sim_driver_device.c - TEST DOUBLE for CI: devices and contexts of the
 * simulated libcuda.so.1.
 *
 * CUDALENS_SIM_DEVICES=N (default 2, at most 16) devices named
 * "cudalens simulated GPU <i>", compute capability 9.0, distinct UUIDs;
 * CUDA_VISIBLE_DEVICES (a list of indices) selects and reorders them.
 * Contexts raise RESOURCE callbacks: CONTEXT_CREATED when made (a device's
 * primary context on its first runtime use), CONTEXT_DESTROY_STARTING at
 * cuCtxDestroy, primary context reset (cudaDeviceReset) and the last
 * cuDevicePrimaryCtxRelease; activity buffers are flushed after each.  At
 * process exit activity buffers are flushed but, as measured with CUDA 13 /
 * driver 580, no CONTEXT_DESTROY_STARTING reaches the subscriber for
 * contexts still alive; CUDALENS_SIM_DESTROY_AT_EXIT=1 raises them anyway.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim_driver.h"

pthread_mutex_t clsimdrv_lock = PTHREAD_MUTEX_INITIALIZER;
struct sim_ctx *clsimdrv_ctxs;
int clsimdrv_initialized;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_ndev;
static int g_phys[CLSIM_MAX_DEVICES];   /* ordinal -> simulated physical GPU */
static struct sim_ctx *g_primary[CLSIM_MAX_DEVICES];
static uint32_t g_next_ctx_uid = 1;
static pid_t g_pid;
static int g_atexit_done;

#define CTX_STACK 16
static __thread struct sim_ctx *t_ctx;
static __thread struct sim_ctx *t_stack[CTX_STACK];
static __thread int t_nstack;

static void setup(void)
{
    const char *n = getenv("CUDALENS_SIM_DEVICES");
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    int total = n && *n ? atoi(n) : 2;
    if (total < 0)
        total = 0;
    if (total > CLSIM_MAX_DEVICES)
        total = CLSIM_MAX_DEVICES;
    g_ndev = 0;
    if (vis) {
        /* like the real driver: stop at the first invalid entry */
        char *copy = strdup(vis), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            char *end;
            long v = strtol(tok, &end, 10);
            if (end == tok || v < 0 || v >= total)
                break;
            g_phys[g_ndev++] = (int)v;
        }
        free(copy);
    } else {
        for (int i = 0; i < total; i++)
            g_phys[g_ndev++] = i;
    }
}

static int ndev(void)
{
    pthread_once(&g_once, setup);
    return g_ndev;
}

int drv_device_ok(int device)
{
    return device >= 0 && device < ndev();
}

int clsimdrv_device_count(void)
{
    return ndev();
}

/* ---- contexts -------------------------------------------------------------- */

struct sim_ctx *drv_ctx(void)
{
    return t_ctx;
}

struct sim_ctx *drv_ctx_check(CUcontext c)
{
    struct sim_ctx *x = (struct sim_ctx *)c;
    return x && x->magic == CLSIM_MAGIC_CTX ? x : NULL;
}

void drv_set_ctx(struct sim_ctx *c)
{
    t_ctx = c;
}

CUcontext clsimdrv_current_ctx(void)
{
    return (CUcontext)t_ctx;
}

uint32_t clsimdrv_ctx_uid(CUcontext c)
{
    struct sim_ctx *x = drv_ctx_check(c);
    return x ? x->uid : 0;
}

int clsimdrv_ctx_device(CUcontext c)
{
    struct sim_ctx *x = c ? drv_ctx_check(c) : t_ctx;
    return x ? x->device : -1;
}

static void destroy_notify(struct sim_ctx *c)
{
    CUpti_ResourceData rd;
    memset(&rd, 0, sizeof rd);
    rd.context = (CUcontext)c;
    clsim_raise(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &rd);
    clsim_activity_flush();
}

/* process exit: contexts still alive are destroyed, as cudart does */
static void at_exit(void)
{
    struct sim_ctx *c;
    const char *e = getenv("CUDALENS_SIM_DESTROY_AT_EXIT");
    if (getpid() != g_pid)
        return;  /* a forked child: the parent owns the contexts */
    for (; e && *e && strcmp(e, "0") != 0;) {
        pthread_mutex_lock(&clsimdrv_lock);
        for (c = clsimdrv_ctxs; c && !c->active; c = c->next)
            ;
        if (c)
            c->active = 0;
        pthread_mutex_unlock(&clsimdrv_lock);
        if (!c)
            break;
        destroy_notify(c);
    }
    clsim_activity_flush();
}

static struct sim_ctx *drv_ctx_alloc(int device, int primary)
{
    struct sim_ctx *c = calloc(1, sizeof *c);
    c->magic = CLSIM_MAGIC_CTX;
    c->device = device;
    c->primary = primary;
    c->active = 1;
    pthread_mutex_lock(&clsimdrv_lock);
    c->uid = g_next_ctx_uid++;
    c->next = clsimdrv_ctxs;
    clsimdrv_ctxs = c;
    if (!g_atexit_done) {
        g_atexit_done = 1;
        g_pid = getpid();
        atexit(at_exit);
    }
    pthread_mutex_unlock(&clsimdrv_lock);
    c->legacy = drv_stream_new(c, 0, 0, 1, 0);
    return c;
}

static void drv_ctx_created(struct sim_ctx *c)
{
    CUpti_ResourceData rd;
    memset(&rd, 0, sizeof rd);
    rd.context = (CUcontext)c;
    clsim_raise(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &rd);
}

struct sim_ctx *drv_ctx_new(int device, int primary)
{
    struct sim_ctx *c = drv_ctx_alloc(device, primary);
    drv_ctx_created(c);
    return c;
}

/* the handle stays readable (magic cleared) so stale uses fail cleanly */
void drv_ctx_destroy(struct sim_ctx *c)
{
    pthread_mutex_lock(&clsimdrv_lock);
    int was = c->active;
    c->active = 0;
    pthread_mutex_unlock(&clsimdrv_lock);
    if (was)
        destroy_notify(c);
    c->magic = 0;
    for (int i = 0; i < CTX_STACK; i++)
        if (t_stack[i] == c)
            t_stack[i] = NULL;
    if (t_ctx == c)
        t_ctx = NULL;
}

/* One creator at a time; the lock is recursive and held while
 * CONTEXT_CREATED is raised, so other threads wait until the subscriber has
 * seen the context, and a subscriber calling the runtime from that callback
 * finds it. */
static pthread_mutex_t g_primary_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static struct sim_ctx *primary(int device, int create)
{
    struct sim_ctx *c;
    pthread_mutex_lock(&g_primary_lock);
    c = g_primary[device];
    if (c && !c->active)
        c = NULL;
    if (!c && create) {
        c = drv_ctx_alloc(device, 1);
        g_primary[device] = c;
        drv_ctx_created(c);
    }
    pthread_mutex_unlock(&g_primary_lock);
    return c;
}

CUresult clsimdrv_use_device(int device, CUcontext *ctx)
{
    struct sim_ctx *c;
    if (!drv_device_ok(device))
        return CUDA_ERROR_INVALID_DEVICE;
    clsimdrv_initialized = 1;
    c = primary(device, 1);
    pthread_mutex_lock(&clsimdrv_lock);
    if (!c->rt_ref) {
        c->rt_ref = 1;
        c->refs++;
    }
    pthread_mutex_unlock(&clsimdrv_lock);
    t_ctx = c;
    if (ctx)
        *ctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

CUcontext clsimdrv_primary_ctx(int device)
{
    return drv_device_ok(device) ? (CUcontext)primary(device, 0) : NULL;
}

CUresult clsimdrv_primary_reset(int device)
{
    struct sim_ctx *c;
    if (!drv_device_ok(device))
        return CUDA_ERROR_INVALID_DEVICE;
    c = primary(device, 0);
    if (c) {
        drv_wait_until(drv_ctx_tail(c));
        drv_ctx_destroy(c);
    }
    return CUDA_SUCCESS;
}

/* ---- the driver API: init, devices ----------------------------------------- */

CUresult cuInit(unsigned int Flags)
{
    DRV_ENTER(cuInit, NULL, Flags);
    if (Flags != 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    clsimdrv_initialized = 1;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuDriverGetVersion(int *driverVersion)
{
    DRV_ENTER(cuDriverGetVersion, NULL, driverVersion);
    if (!driverVersion)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *driverVersion = CUDA_VERSION;
    DRV_RETURN(CUDA_SUCCESS);
}

#define NEED_INIT() do { if (!clsimdrv_initialized) DRV_RETURN(CUDA_ERROR_NOT_INITIALIZED); } while (0)

CUresult cuDeviceGetCount(int *count)
{
    DRV_ENTER(cuDeviceGetCount, NULL, count);
    NEED_INIT();
    if (!count)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *count = ndev();
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    DRV_ENTER(cuDeviceGet, NULL, device, ordinal);
    NEED_INIT();
    if (!device)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!drv_device_ok(ordinal))
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    *device = ordinal;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult clsimdrv_device_name(int device, char *buf, size_t len)
{
    if (!drv_device_ok(device))
        return CUDA_ERROR_INVALID_DEVICE;
    if (!buf || !len)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(buf, len, "cudalens simulated GPU %d", g_phys[device]);
    return CUDA_SUCCESS;
}

CUresult clsimdrv_device_uuid(int device, CUuuid *uuid)
{
    static const char tag[] = "clsimGPU";
    if (!drv_device_ok(device))
        return CUDA_ERROR_INVALID_DEVICE;
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    memset(uuid, 0, sizeof *uuid);
    memcpy(uuid->bytes, tag, 8);
    uuid->bytes[15] = (char)(0x10 + g_phys[device]);
    return CUDA_SUCCESS;
}

int clsimdrv_device_pci_bus(int device)
{
    return drv_device_ok(device) ? 0x18 + 0x10 * g_phys[device] : 0;
}

size_t clsimdrv_device_mem(int device)
{
    (void)device;
    return (size_t)80 << 30;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    DRV_ENTER(cuDeviceGetName, NULL, name, len, dev);
    NEED_INIT();
    DRV_RETURN(len <= 0 ? CUDA_ERROR_INVALID_VALUE : clsimdrv_device_name(dev, name, (size_t)len));
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    DRV_ENTER(cuDeviceGetUuid_v2, NULL, uuid, dev);
    NEED_INIT();
    DRV_RETURN(clsimdrv_device_uuid(dev, uuid));
}

#undef cuDeviceGetUuid
CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    DRV_ENTER(cuDeviceGetUuid, NULL, uuid, dev);
    NEED_INIT();
    DRV_RETURN(clsimdrv_device_uuid(dev, uuid));
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    DRV_ENTER(cuDeviceTotalMem_v2, NULL, bytes, dev);
    NEED_INIT();
    if (!bytes)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!drv_device_ok(dev))
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    *bytes = clsimdrv_device_mem(dev);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    DRV_ENTER(cuDeviceGetPCIBusId, NULL, pciBusId, len, dev);
    NEED_INIT();
    if (!pciBusId || len <= 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!drv_device_ok(dev))
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    snprintf(pciBusId, (size_t)len, "00000000:%02X:00.0", clsimdrv_device_pci_bus(dev));
    DRV_RETURN(CUDA_SUCCESS);
}

static int attribute(CUdevice_attribute a, int dev)
{
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return 1;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 2;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 132;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 49152;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 232448;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 2619000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 5120;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 52428800;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return clsimdrv_device_pci_bus(dev);
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: return CU_COMPUTEMODE_DEFAULT;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: return 0;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: return 1;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: return 0;
    default: return 0;
    }
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    DRV_ENTER(cuDeviceGetAttribute, NULL, pi, attrib, dev);
    NEED_INIT();
    if (!pi || (int)attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!drv_device_ok(dev))
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    *pi = attribute(attrib, dev);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    DRV_ENTER(cuDeviceCanAccessPeer, NULL, canAccessPeer, dev, peerDev);
    NEED_INIT();
    if (!canAccessPeer)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!drv_device_ok(dev) || !drv_device_ok(peerDev))
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    *canAccessPeer = dev != peerDev;
    DRV_RETURN(CUDA_SUCCESS);
}

/* ---- the driver API: contexts --------------------------------------------- */

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    DRV_ENTER(cuCtxGetCurrent, NULL, pctx);
    if (!pctx)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *pctx = (CUcontext)t_ctx;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    DRV_ENTER(cuCtxSetCurrent, NULL, ctx);
    NEED_INIT();
    if (ctx && !drv_ctx_check(ctx))
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    t_ctx = (struct sim_ctx *)ctx;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuCtxGetDevice(CUdevice *device)
{
    DRV_ENTER(cuCtxGetDevice, NULL, device);
    if (!device)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!t_ctx)
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    *device = t_ctx->device;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
    DRV_ENTER(cuCtxGetId, NULL, ctx, ctxId);
    struct sim_ctx *c = ctx ? drv_ctx_check(ctx) : t_ctx;
    if (!ctxId)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!c)
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    *ctxId = c->uid;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags,
                        CUdevice dev)
{
    DRV_ENTER(cuCtxCreate_v4, NULL, pctx, ctxCreateParams, flags, dev);
    NEED_INIT();
    if (!pctx)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!drv_device_ok(dev))
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    struct sim_ctx *c = drv_ctx_new(dev, 0);
    if (t_ctx && t_nstack < CTX_STACK)
        t_stack[t_nstack++] = t_ctx;
    t_ctx = c;
    *pctx = (CUcontext)c;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    DRV_ENTER(cuCtxDestroy_v2, NULL, ctx);
    struct sim_ctx *c = drv_ctx_check(ctx);
    if (!c || c->primary)
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    drv_wait_until(drv_ctx_tail(c));
    drv_ctx_destroy(c);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    DRV_ENTER(cuCtxPushCurrent_v2, NULL, ctx);
    if (!drv_ctx_check(ctx))
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (t_nstack >= CTX_STACK)
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    t_stack[t_nstack++] = t_ctx;
    t_ctx = (struct sim_ctx *)ctx;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    DRV_ENTER(cuCtxPopCurrent_v2, NULL, pctx);
    if (!t_ctx)
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (pctx)
        *pctx = (CUcontext)t_ctx;
    t_ctx = t_nstack > 0 ? t_stack[--t_nstack] : NULL;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    DRV_ENTER(cuDevicePrimaryCtxRetain, NULL, pctx, dev);
    NEED_INIT();
    if (!pctx)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!drv_device_ok(dev))
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    struct sim_ctx *c = primary(dev, 1);
    pthread_mutex_lock(&clsimdrv_lock);
    c->refs++;
    pthread_mutex_unlock(&clsimdrv_lock);
    *pctx = (CUcontext)c;
    DRV_RETURN(CUDA_SUCCESS);
}

/* the last release destroys the primary context (the runtime holds one
 * retain for as long as the process uses it) */
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    DRV_ENTER(cuDevicePrimaryCtxRelease_v2, NULL, dev);
    struct sim_ctx *c;
    int last = 0;
    if (!drv_device_ok(dev))
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    if (!(c = primary(dev, 0)) || c->refs <= 0)
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    pthread_mutex_lock(&clsimdrv_lock);
    last = --c->refs == 0;
    pthread_mutex_unlock(&clsimdrv_lock);
    if (last) {
        drv_wait_until(drv_ctx_tail(c));
        drv_ctx_destroy(c);
    }
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    DRV_ENTER(cuDevicePrimaryCtxReset_v2, NULL, dev);
    DRV_RETURN(clsimdrv_primary_reset(dev));
}

CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    DRV_ENTER(cuCtxEnablePeerAccess, NULL, peerContext, Flags);
    struct sim_ctx *p = drv_ctx_check(peerContext);
    if (!t_ctx)
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!p || Flags)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (p->device == t_ctx->device)
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    if (t_ctx->peer[p->device])
        DRV_RETURN(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    t_ctx->peer[p->device] = 1;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
    DRV_ENTER(cuCtxDisablePeerAccess, NULL, peerContext);
    struct sim_ctx *p = drv_ctx_check(peerContext);
    if (!t_ctx)
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!p)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!t_ctx->peer[p->device])
        DRV_RETURN(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    t_ctx->peer[p->device] = 0;
    DRV_RETURN(CUDA_SUCCESS);
}

/* ---- errors ----------------------------------------------------------------- */

static const struct { CUresult r; const char *name, *text; } g_errors[] = {
    { CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
    { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
    { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
    { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
    { CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down" },
    { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
    { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
    { CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
    { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
    { CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
    { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
    { CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
    { CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
      "peer access is already enabled" },
    { CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
      "peer access has not been enabled" },
    { CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
      "part or all of the requested memory range is already mapped" },
    { CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
      "pointer does not correspond to a registered memory region" },
    { CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
};

CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof g_errors / sizeof g_errors[0]; i++)
        if (g_errors[i].r == error) {
            *pStr = g_errors[i].text;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof g_errors / sizeof g_errors[0]; i++)
        if (g_errors[i].r == error) {
            *pStr = g_errors[i].name;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

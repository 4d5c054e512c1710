/* sim_cudart_device.c - TEST DOUBLE for CI: device management, versions and
 * errors of the simulated libcudart.so.13 (cudaSetDevice, cudaGetDevice*,
 * cudaGetDeviceProperties, cudaDeviceSynchronize/Reset, peer access,
 * cudaGetLastError, cudaGetErrorString, ...).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "sim_cudart.h"

static __thread int t_device;
static __thread cudaError_t t_last;

int rt_device(void)
{
    return t_device;
}

void rt_set_device(int device)
{
    t_device = device;
}

cudaError_t rt_ctx(void)
{
    CUcontext c = clsimdrv_current_ctx();
    int d;
    if (c && (d = clsimdrv_ctx_device(c)) >= 0) {
        t_device = d;
        return cudaSuccess;
    }
    if (clsimdrv_device_count() == 0)
        return cudaErrorNoDevice;
    return CU2RT(clsimdrv_use_device(t_device, NULL));
}

cudaError_t rt_record(cudaError_t err)
{
    if (err != cudaSuccess && err != cudaErrorNotReady)
        t_last = err;
    return err;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    RT_ENTER(cudaGetDeviceCount_v3020, "cudaGetDeviceCount", count);
    if (!count)
        RT_RETURN(cudaErrorInvalidValue);
    *count = clsimdrv_device_count();
    RT_RETURN(*count ? cudaSuccess : cudaErrorNoDevice);
}

cudaError_t cudaGetDevice(int *device)
{
    RT_ENTER(cudaGetDevice_v3020, "cudaGetDevice", device);
    if (!device)
        RT_RETURN(cudaErrorInvalidValue);
    CUcontext c = clsimdrv_current_ctx();
    *device = c && clsimdrv_ctx_device(c) >= 0 ? clsimdrv_ctx_device(c) : t_device;
    RT_RETURN(cudaSuccess);
}

cudaError_t cudaSetDevice(int device)
{
    RT_ENTER(cudaSetDevice_v3020, "cudaSetDevice", device);
    if (device < 0 || device >= clsimdrv_device_count())
        RT_RETURN(cudaErrorInvalidDevice);
    t_device = device;
    RT_RETURN(CU2RT(clsimdrv_use_device(device, NULL)));
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    RT_ENTER(cudaGetDeviceProperties_v12000, "cudaGetDeviceProperties", prop, device);
    if (!prop)
        RT_RETURN(cudaErrorInvalidValue);
    if (device < 0 || device >= clsimdrv_device_count())
        RT_RETURN(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    clsimdrv_device_name(device, prop->name, sizeof prop->name);
    clsimdrv_device_uuid(device, (CUuuid *)&prop->uuid);
    prop->totalGlobalMem = clsimdrv_device_mem(device);
    prop->sharedMemPerBlock = 49152;
    prop->regsPerBlock = 65536;
    prop->warpSize = 32;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
    prop->totalConstMem = 65536;
    prop->major = 9;
    prop->minor = 0;
    prop->multiProcessorCount = 132;
    prop->l2CacheSize = 52428800;
    prop->maxThreadsPerMultiProcessor = 2048;
    prop->unifiedAddressing = 1;
    prop->managedMemory = 1;
    prop->concurrentManagedAccess = 1;
    prop->concurrentKernels = 1;
    prop->asyncEngineCount = 2;
    prop->canMapHostMemory = 1;
    prop->pciBusID = clsimdrv_device_pci_bus(device);
    prop->memoryBusWidth = 5120;
    prop->sharedMemPerMultiprocessor = 233472;
    prop->regsPerMultiprocessor = 65536;
    prop->sharedMemPerBlockOptin = 232448;
    prop->ECCEnabled = 1;
    RT_RETURN(cudaSuccess);
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    RT_ENTER(cudaDeviceGetAttribute_v5000, "cudaDeviceGetAttribute", value, attr, device);
    cudaError_t e = rt_ctx();
    if (e == cudaSuccess)
        e = CU2RT(cuDeviceGetAttribute(value, (CUdevice_attribute)attr, device));
    RT_RETURN(e);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    RT_ENTER(cudaDeviceGetStreamPriorityRange_v5050, "cudaDeviceGetStreamPriorityRange",
             leastPriority, greatestPriority);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority)));
}

cudaError_t cudaDeviceSynchronize(void)
{
    RT_ENTER_P(cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize", NULL, NULL);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuCtxSynchronize_v2(clsimdrv_current_ctx())));
}

cudaError_t cudaDeviceReset(void)
{
    RT_ENTER_P(cudaDeviceReset_v3020, "cudaDeviceReset", NULL, NULL);
    RT_RETURN(CU2RT(clsimdrv_primary_reset(rt_device())));
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    RT_ENTER(cudaDeviceCanAccessPeer_v4000, "cudaDeviceCanAccessPeer", canAccessPeer, device,
             peerDevice);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuDeviceCanAccessPeer(canAccessPeer, device, peerDevice)));
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    RT_ENTER(cudaDeviceEnablePeerAccess_v4000, "cudaDeviceEnablePeerAccess", peerDevice, flags);
    RT_NEED_CTX();
    if (peerDevice < 0 || peerDevice >= clsimdrv_device_count())
        RT_RETURN(cudaErrorInvalidDevice);
    CUcontext cur = clsimdrv_current_ctx(), peer;
    cudaError_t e = CU2RT(clsimdrv_use_device(peerDevice, &peer));
    clsimdrv_use_device(rt_device(), NULL);
    if (e == cudaSuccess && clsimdrv_current_ctx() != cur)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = CU2RT(cuCtxEnablePeerAccess(peer, flags));
    RT_RETURN(e);
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    RT_ENTER(cudaDeviceDisablePeerAccess_v4000, "cudaDeviceDisablePeerAccess", peerDevice);
    RT_NEED_CTX();
    CUcontext peer = clsimdrv_primary_ctx(peerDevice);
    RT_RETURN(peer ? CU2RT(cuCtxDisablePeerAccess(peer)) : cudaErrorPeerAccessNotEnabled);
}

cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    RT_ENTER(cudaDriverGetVersion_v3020, "cudaDriverGetVersion", driverVersion);
    if (!driverVersion)
        RT_RETURN(cudaErrorInvalidValue);
    *driverVersion = CUDA_VERSION;
    RT_RETURN(cudaSuccess);
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    RT_ENTER(cudaRuntimeGetVersion_v3020, "cudaRuntimeGetVersion", runtimeVersion);
    if (!runtimeVersion)
        RT_RETURN(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    RT_RETURN(cudaSuccess);
}

cudaError_t cudaMemGetInfo(size_t *free_, size_t *total)
{
    RT_ENTER(cudaMemGetInfo_v3020, "cudaMemGetInfo", free_, total);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemGetInfo_v2(free_, total)));
}

/* ---- errors: cudaGetLastError is not recorded as an error itself -------- */

cudaError_t cudaGetLastError(void)
{
    RT_ENTER_P(cudaGetLastError_v3020, "cudaGetLastError", NULL, NULL);
    cudaError_t e = t_last;
    t_last = cudaSuccess;
    rt_r_ = e;
    clsim_api_exit(&rt_a_);
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    RT_ENTER_P(cudaPeekAtLastError_v3020, "cudaPeekAtLastError", NULL, NULL);
    rt_r_ = t_last;
    clsim_api_exit(&rt_a_);
    return rt_r_;
}

static const struct { cudaError_t e; const char *name, *text; } g_errors[] = {
#define E(x, t) { x, #x, t }
    E(cudaSuccess, "no error"),
    E(cudaErrorInvalidValue, "invalid argument"),
    E(cudaErrorMemoryAllocation, "out of memory"),
    E(cudaErrorInitializationError, "initialization error"),
    E(cudaErrorInvalidDevice, "invalid device ordinal"),
    E(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    E(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    E(cudaErrorDeviceUninitialized, "invalid device context"),
    E(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    E(cudaErrorSymbolNotFound, "named symbol not found"),
    E(cudaErrorInvalidDeviceFunction, "invalid device function"),
    E(cudaErrorNotReady, "device not ready"),
    E(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    E(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    E(cudaErrorHostMemoryAlreadyRegistered,
      "part or all of the requested memory range is already mapped"),
    E(cudaErrorHostMemoryNotRegistered,
      "pointer does not correspond to a registered memory region"),
    E(cudaErrorNotSupported, "operation not supported"),
    E(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    E(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    E(cudaErrorUnknown, "unknown error"),
#undef E
};

const char *cudaGetErrorString(cudaError_t error)
{
    RT_ENTER(cudaGetErrorString_v3020, "cudaGetErrorString", error);
    const char *s = "unrecognized error code";
    for (size_t i = 0; i < sizeof g_errors / sizeof g_errors[0]; i++)
        if (g_errors[i].e == error)
            s = g_errors[i].text;
    clsim_api_exit(&rt_a_);
    return s;
}

const char *cudaGetErrorName(cudaError_t error)
{
    RT_ENTER(cudaGetErrorName_v6050, "cudaGetErrorName", error);
    const char *s = "unrecognized error code";
    for (size_t i = 0; i < sizeof g_errors / sizeof g_errors[0]; i++)
        if (g_errors[i].e == error)
            s = g_errors[i].name;
    clsim_api_exit(&rt_a_);
    return s;
}

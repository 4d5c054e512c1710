/* sim_cudart_memory.c - TEST DOUBLE for CI: memory API of the simulated
 * libcudart.so.13: cudaMalloc/Free family (host, managed, stream-ordered,
 * host registration, cudaHostGetDevicePointer, cudaStreamAttachMemAsync),
 * cudaMemcpy/Memset and their Async forms, peer copies, cudaMemPrefetchAsync,
 * cudaPointerGetAttributes, memory pools (the default pool of a device, its
 * access descriptors, cudaMallocFromPoolAsync).  Each does its work through the sim driver
 * (nested DRIVER callbacks: cuMemAlloc_v2, cuMemcpyHtoDAsync_v2, ...).
 */
#define _GNU_SOURCE
#include <string.h>
#include "sim_cudart.h"

#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    RT_ENTER(cudaMalloc_v3020, "cudaMalloc", devPtr, size);
    RT_NEED_CTX();
    if (!devPtr)
        RT_RETURN(cudaErrorInvalidValue);
    if (size == 0) {
        *devPtr = NULL;
        RT_RETURN(cudaSuccess);
    }
    RT_RETURN(CU2RT(cuMemAlloc_v2((CUdeviceptr *)devPtr, size)));
}

cudaError_t cudaFree(void *devPtr)
{
    RT_ENTER(cudaFree_v3020, "cudaFree", devPtr);
    RT_NEED_CTX();  /* cudaFree(0) is the classic way to initialize */
    if (!devPtr)
        RT_RETURN(cudaSuccess);
    RT_RETURN(CU2RT(cuMemFree_v2(DP(devPtr))));
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    RT_ENTER(cudaMallocHost_v3020, "cudaMallocHost", ptr, size);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemAllocHost_v2(ptr, size)));
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    RT_ENTER(cudaHostAlloc_v3020, "cudaHostAlloc", pHost, size, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemHostAlloc(pHost, size, flags)));
}

cudaError_t cudaFreeHost(void *ptr)
{
    RT_ENTER(cudaFreeHost_v3020, "cudaFreeHost", ptr);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemFreeHost(ptr)));
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    RT_ENTER(cudaHostRegister_v4000, "cudaHostRegister", ptr, size, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemHostRegister_v2(ptr, size, flags)));
}

cudaError_t cudaHostUnregister(void *ptr)
{
    RT_ENTER(cudaHostUnregister_v4000, "cudaHostUnregister", ptr);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemHostUnregister(ptr)));
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    RT_ENTER(cudaHostGetDevicePointer_v3020, "cudaHostGetDevicePointer", pDevice, pHost, flags);
    RT_NEED_CTX();
    int kind;
    if (!pDevice || flags)
        RT_RETURN(cudaErrorInvalidValue);
    if (!clsimdrv_ptr_info(pHost, &kind, NULL, NULL, NULL, NULL) ||
        kind != CUPTI_ACTIVITY_MEMORY_KIND_PINNED)
        RT_RETURN(cudaErrorInvalidValue);
    *pDevice = pHost;  /* unified addressing */
    RT_RETURN(cudaSuccess);
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    RT_ENTER(cudaMallocManaged_v6000, "cudaMallocManaged", devPtr, size, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemAllocManaged((CUdeviceptr *)devPtr, size,
                                      flags ? flags : CU_MEM_ATTACH_GLOBAL)));
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                     unsigned int flags)
{
    RT_ENTER(cudaStreamAttachMemAsync_v6000, "cudaStreamAttachMemAsync", stream, devPtr,
             length, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamAttachMemAsync((CUstream)stream, DP(devPtr), length, flags)));
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    RT_ENTER(cudaMallocAsync_v11020, "cudaMallocAsync", devPtr, size, hStream);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemAllocAsync((CUdeviceptr *)devPtr, size, (CUstream)hStream)));
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    RT_ENTER(cudaFreeAsync_v11020, "cudaFreeAsync", devPtr, hStream);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemFreeAsync(DP(devPtr), (CUstream)hStream)));
}

/* memory pools: the driver's, through cudaMemPool_t == CUmemoryPool */
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    RT_ENTER(cudaDeviceGetDefaultMemPool_v11020, "cudaDeviceGetDefaultMemPool", memPool, device);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuDeviceGetDefaultMemPool((CUmemoryPool *)memPool, device)));
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList,
                                 size_t count)
{
    RT_ENTER(cudaMemPoolSetAccess_v11020, "cudaMemPoolSetAccess", memPool, descList, count);
    RT_NEED_CTX();
    /* cudaMemAccessDesc and CUmemAccessDesc have the same layout */
    RT_RETURN(CU2RT(cuMemPoolSetAccess((CUmemoryPool)memPool, (const CUmemAccessDesc *)descList,
                                       count)));
}

cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                 struct cudaMemLocation *location)
{
    RT_ENTER(cudaMemPoolGetAccess_v11020, "cudaMemPoolGetAccess", flags, memPool, location);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemPoolGetAccess((CUmemAccess_flags *)flags, (CUmemoryPool)memPool,
                                       (CUmemLocation *)location)));
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                    cudaStream_t stream)
{
    RT_ENTER(cudaMallocFromPoolAsync_v11020, "cudaMallocFromPoolAsync", ptr, size, memPool,
             stream);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemAllocFromPoolAsync((CUdeviceptr *)ptr, size, (CUmemoryPool)memPool,
                                            (CUstream)stream)));
}

/* the driver entry point real cudart uses for each direction */
static cudaError_t copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                        cudaStream_t s, int async)
{
    CUstream h = (CUstream)s;
    switch (kind) {
    case cudaMemcpyHostToDevice:
        return CU2RT(async ? cuMemcpyHtoDAsync_v2(DP(dst), src, n, h) : cuMemcpyHtoD_v2(DP(dst), src, n));
    case cudaMemcpyDeviceToHost:
        return CU2RT(async ? cuMemcpyDtoHAsync_v2(dst, DP(src), n, h) : cuMemcpyDtoH_v2(dst, DP(src), n));
    case cudaMemcpyDeviceToDevice:
        return CU2RT(async ? cuMemcpyDtoDAsync_v2(DP(dst), DP(src), n, h)
                           : cuMemcpyDtoD_v2(DP(dst), DP(src), n));
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
        return CU2RT(async ? cuMemcpyAsync(DP(dst), DP(src), n, h) : cuMemcpy(DP(dst), DP(src), n));
    default:
        return cudaErrorInvalidMemcpyDirection;
    }
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    RT_ENTER(cudaMemcpy_v3020, "cudaMemcpy", dst, src, count, kind);
    RT_NEED_CTX();
    RT_RETURN(copy(dst, src, count, kind, NULL, 0));
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    RT_ENTER(cudaMemcpyAsync_v3020, "cudaMemcpyAsync", dst, src, count, kind, stream);
    RT_NEED_CTX();
    RT_RETURN(copy(dst, src, count, kind, stream, 1));
}

static cudaError_t peer(void *dst, int dstDevice, const void *src, int srcDevice, size_t n,
                        cudaStream_t s, int async)
{
    CUcontext dc, sc;
    int cur = rt_device();
    cudaError_t e;
    if (dstDevice < 0 || dstDevice >= clsimdrv_device_count() || srcDevice < 0 ||
        srcDevice >= clsimdrv_device_count())
        return cudaErrorInvalidDevice;
    /* both primary contexts exist once used; make sure they do */
    if ((e = CU2RT(clsimdrv_use_device(dstDevice, &dc))) != cudaSuccess ||
        (e = CU2RT(clsimdrv_use_device(srcDevice, &sc))) != cudaSuccess)
        return e;
    clsimdrv_use_device(cur, NULL);
    return CU2RT(async ? cuMemcpyPeerAsync(DP(dst), dc, DP(src), sc, n, (CUstream)s)
                       : cuMemcpyPeer(DP(dst), dc, DP(src), sc, n));
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    RT_ENTER(cudaMemcpyPeer_v4000, "cudaMemcpyPeer", dst, dstDevice, src, srcDevice, count);
    RT_NEED_CTX();
    RT_RETURN(peer(dst, dstDevice, src, srcDevice, count, NULL, 0));
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t count, cudaStream_t stream)
{
    RT_ENTER(cudaMemcpyPeerAsync_v4000, "cudaMemcpyPeerAsync", dst, dstDevice, src, srcDevice,
             count, stream);
    RT_NEED_CTX();
    RT_RETURN(peer(dst, dstDevice, src, srcDevice, count, stream, 1));
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    RT_ENTER(cudaMemset_v3020, "cudaMemset", devPtr, value, count);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemsetD8_v2(DP(devPtr), (unsigned char)value, count)));
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    RT_ENTER(cudaMemsetAsync_v3020, "cudaMemsetAsync", devPtr, value, count, stream);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuMemsetD8Async(DP(devPtr), (unsigned char)value, count, (CUstream)stream)));
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream)
{
    RT_ENTER(cudaMemPrefetchAsync_v12020, "cudaMemPrefetchAsync", devPtr, count, location, flags,
             stream);
    RT_NEED_CTX();
    CUmemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = (CUmemLocationType)location.type;
    loc.id = location.id;
    RT_RETURN(CU2RT(cuMemPrefetchAsync_v2(DP(devPtr), count, loc, flags, (CUstream)stream)));
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    RT_ENTER(cudaPointerGetAttributes_v4000, "cudaPointerGetAttributes", attributes, ptr);
    int kind, dev, reg;
    void *base;
    size_t size;
    RT_NEED_CTX();
    if (!attributes)
        RT_RETURN(cudaErrorInvalidValue);
    memset(attributes, 0, sizeof *attributes);
    attributes->device = -2;  /* what CUDA reports for unregistered host memory */
    if (!clsimdrv_ptr_info(ptr, &kind, &dev, &base, &size, &reg)) {
        attributes->type = cudaMemoryTypeUnregistered;
        RT_RETURN(cudaSuccess);
    }
    attributes->device = dev;
    switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
        attributes->type = cudaMemoryTypeDevice;
        attributes->devicePointer = (void *)ptr;
        break;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
        attributes->type = cudaMemoryTypeManaged;
        attributes->devicePointer = attributes->hostPointer = (void *)ptr;
        break;
    default:
        attributes->type = cudaMemoryTypeHost;
        attributes->devicePointer = attributes->hostPointer = (void *)ptr;
        break;
    }
    (void)base;
    (void)size;
    (void)reg;
    RT_RETURN(cudaSuccess);
}

/* sim_driver_vmm.c - TEST DOUBLE for CI: virtual memory management and
 * memory pools of the simulated libcuda.so.1.
 *
 * VMM: cuMemAddressReserve reserves host address space (PROT_NONE); a
 * physical allocation (cuMemCreate) is a memfd of its size on a device;
 * cuMemMap maps it there (MAP_FIXED, shared: two mappings of one handle see
 * the same bytes) and registers the range as device memory of the handle's
 * device, so copies and memsets on it work; cuMemUnmap puts the
 * reservation back.  cuMemSetAccess is checked like the real driver (the
 * range fully mapped, device locations), without effect: the simulated
 * device sees all memory.  Granularity 2 MiB, as on the GPUs we test.
 *
 * Pools: each device has a default pool (cuDeviceGetDefaultMemPool), the
 * one cuMemAllocAsync allocates from; cuMemPoolSetAccess is checked and
 * remembered (cuMemPoolGetAccess); cuMemAllocFromPoolAsync allocates on the
 * pool's device.  cuPointerGetAttribute and cuMemGetAddressRange answer
 * from the registry of ranges (sim_driver_memory.c).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sim_driver.h"

#define GRANULARITY ((size_t)2 << 20)
#define MAGIC_PHYS 0x50485953u /* PHYS */
#define MAGIC_POOL 0x504f4f4cu /* POOL */

struct phys {            /* a CUmemGenericAllocationHandle */
    uint32_t magic;
    int fd, device;
    size_t size;
};

struct reservation {
    uintptr_t base;
    size_t size;
    struct reservation *next;
};
static struct reservation *g_res; /* under clsimdrv_lock */

struct pool {            /* a CUmemoryPool */
    uint32_t magic;
    int device;
    CUmemAccess_flags access[CLSIM_MAX_DEVICES];
};
static struct pool g_default[CLSIM_MAX_DEVICES];

#define NEED_CTX() do { if (!drv_ctx()) DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT); } while (0)

static struct phys *phys_of(CUmemGenericAllocationHandle h)
{
    struct phys *p = (struct phys *)(uintptr_t)h;
    return p && p->magic == MAGIC_PHYS ? p : NULL;
}

/* the reservation holding [p, p + n), or NULL */
static struct reservation *reserved(uintptr_t p, size_t n)
{
    struct reservation *r;
    pthread_mutex_lock(&clsimdrv_lock);
    for (r = g_res; r; r = r->next)
        if (p >= r->base && n <= r->size && p - r->base <= r->size - n)
            break;
    pthread_mutex_unlock(&clsimdrv_lock);
    return r;
}

/* is [p, p + n) device memory all along (the ranges registered there)? */
static int fully_mapped(uintptr_t p, size_t n)
{
    uintptr_t at = p;
    while (at < p + n) {
        int kind, dev;
        void *base;
        size_t size;
        if (!clsimdrv_ptr_info((void *)at, &kind, &dev, &base, &size, NULL) ||
            kind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE)
            return 0;
        at = (uintptr_t)base + size;
    }
    return 1;
}

static int access_ok(const CUmemAccessDesc *d, size_t count)
{
    if (!d || !count)
        return 0;
    for (size_t i = 0; i < count; i++)
        if (d[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
            !drv_device_ok(d[i].location.id) ||
            (d[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
             d[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
             d[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE))
            return 0;
    return 1;
}

/* ---- virtual memory management ------------------------------------------- */

CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                       CUmemAllocationGranularity_flags option)
{
    DRV_ENTER(cuMemGetAllocationGranularity, NULL, granularity, prop, option);
    if (!granularity || !prop || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        !drv_device_ok(prop->location.id))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *granularity = GRANULARITY;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags)
{
    DRV_ENTER(cuMemAddressReserve, NULL, ptr, size, alignment, addr, flags);
    NEED_CTX();
    if (!ptr || !size || size % GRANULARITY || flags)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    (void)addr; /* a hint */
    size_t align = alignment > GRANULARITY ? alignment : GRANULARITY;
    char *m = mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED)
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    uintptr_t base = ((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1);
    if (base > (uintptr_t)m)
        munmap(m, base - (uintptr_t)m);
    munmap((char *)base + size, (uintptr_t)m + align - base);
    struct reservation *r = malloc(sizeof *r);
    if (!r) {
        munmap((void *)base, size);
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    }
    pthread_mutex_lock(&clsimdrv_lock);
    *r = (struct reservation){ base, size, g_res };
    g_res = r;
    pthread_mutex_unlock(&clsimdrv_lock);
    *ptr = base;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    DRV_ENTER(cuMemAddressFree, NULL, ptr, size);
    struct reservation **pp, *r = NULL;
    pthread_mutex_lock(&clsimdrv_lock);
    for (pp = &g_res; *pp; pp = &(*pp)->next)
        if ((*pp)->base == ptr && (*pp)->size == size) {
            r = *pp;
            *pp = r->next;
            break;
        }
    pthread_mutex_unlock(&clsimdrv_lock);
    if (!r)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    drv_mem_remove_within(ptr, size);
    munmap((void *)ptr, size);
    free(r);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                     const CUmemAllocationProp *prop, unsigned long long flags)
{
    DRV_ENTER(cuMemCreate, NULL, handle, size, prop, flags);
    NEED_CTX();
    if (!handle || !prop || !size || size % GRANULARITY || flags ||
        prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
        prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        !drv_device_ok(prop->location.id))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    struct phys *p = calloc(1, sizeof *p);
    if (!p)
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    p->fd = memfd_create("clsim-phys", MFD_CLOEXEC);
    if (p->fd < 0 || ftruncate(p->fd, (off_t)size) != 0) {
        if (p->fd >= 0)
            close(p->fd);
        free(p);
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    }
    p->magic = MAGIC_PHYS;
    p->device = prop->location.id;
    p->size = size;
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)p;
    DRV_RETURN(CUDA_SUCCESS);
}

/* the physical memory lives on while mapped (the mappings hold the memfd) */
CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    DRV_ENTER(cuMemRelease, NULL, handle);
    struct phys *p = phys_of(handle);
    if (!p)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    p->magic = 0;
    close(p->fd);
    free(p);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                CUmemGenericAllocationHandle handle)
{
    DRV_ENTER(cuMemGetAllocationPropertiesFromHandle, NULL, prop, handle);
    struct phys *p = phys_of(handle);
    if (!p || !prop)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    memset(prop, 0, sizeof *prop);
    prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop->location.id = p->device;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags)
{
    DRV_ENTER(cuMemMap, NULL, ptr, size, offset, handle, flags);
    struct phys *p = phys_of(handle);
    if (!p || !size || flags || offset != 0 || size % GRANULARITY || offset + size > p->size ||
        !reserved(ptr, size))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (clsimdrv_ptr_info((void *)ptr, NULL, NULL, NULL, NULL, NULL) ||
        clsimdrv_ptr_info((void *)(ptr + size - 1), NULL, NULL, NULL, NULL, NULL))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE); /* mapped already */
    if (mmap((void *)ptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->fd,
             (off_t)offset) == MAP_FAILED)
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    drv_mem_add(ptr, size, p->device);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    DRV_ENTER(cuMemUnmap, NULL, ptr, size);
    struct sim_ctx *c = drv_ctx();
    if (!reserved(ptr, size) || !fully_mapped(ptr, size))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    /* synchronous for most uses, like cuMemFree */
    if (c)
        drv_wait_until(drv_ctx_tail(c));
    drv_mem_remove_within(ptr, size);
    mmap((void *)ptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
         -1, 0);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    DRV_ENTER(cuMemSetAccess, NULL, ptr, size, desc, count);
    if (!size || !fully_mapped(ptr, size) || !access_ok(desc, count))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    DRV_RETURN(CUDA_SUCCESS);
}

/* ---- pointers ------------------------------------------------------------ */

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    DRV_ENTER(cuMemGetAddressRange_v2, NULL, pbase, psize, dptr);
    void *base;
    size_t size;
    int kind;
    if (!clsimdrv_ptr_info((void *)dptr, &kind, NULL, &base, &size, NULL) ||
        kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED)
        DRV_RETURN(CUDA_ERROR_NOT_FOUND);
    if (pbase)
        *pbase = (CUdeviceptr)base;
    if (psize)
        *psize = size;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    DRV_ENTER(cuPointerGetAttribute, NULL, data, attribute, ptr);
    int kind, device;
    if (!data)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!clsimdrv_ptr_info((void *)ptr, &kind, &device, NULL, NULL, NULL))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = device;
        break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = (CUmemoryPool)drv_mem_pool(ptr);
        break;
    default:
        DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
    }
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
                                void **data, CUdeviceptr ptr)
{
    DRV_ENTER(cuPointerGetAttributes, NULL, numAttributes, attributes, data, ptr);
    int kind, device, found;
    if (!attributes || !data)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    found = clsimdrv_ptr_info((void *)ptr, &kind, &device, NULL, NULL, NULL);
    for (unsigned i = 0; i < numAttributes; i++) {
        switch (attributes[i]) {
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
            *(int *)data[i] = found ? device : -2; /* -2: not CUDA memory */
            break;
        case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
            *(CUmemoryPool *)data[i] = found ? (CUmemoryPool)drv_mem_pool(ptr) : NULL;
            break;
        default:
            DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
        }
    }
    DRV_RETURN(CUDA_SUCCESS);
}

/* ---- memory pools ---------------------------------------------------------- */

void *drv_default_pool(int device)
{
    if (!drv_device_ok(device))
        return NULL;
    struct pool *p = &g_default[device];
    pthread_mutex_lock(&clsimdrv_lock);
    if (p->magic != MAGIC_POOL) {
        memset(p, 0, sizeof *p);
        p->magic = MAGIC_POOL;
        p->device = device;
        /* by default, accessible from the device where it is located */
        p->access[device] = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    pthread_mutex_unlock(&clsimdrv_lock);
    return p;
}

int drv_pool_device(CUmemoryPool pool)
{
    struct pool *p = (struct pool *)pool;
    return p && p->magic == MAGIC_POOL ? p->device : -1;
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    DRV_ENTER(cuDeviceGetDefaultMemPool, NULL, pool_out, dev);
    if (!pool_out || !drv_device_ok(dev))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *pool_out = (CUmemoryPool)drv_default_pool(dev);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    DRV_ENTER(cuMemPoolSetAccess, NULL, pool, map, count);
    struct pool *p = (struct pool *)pool;
    if (drv_pool_device(pool) < 0 || !access_ok(map, count))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < count; i++)
        if (map[i].location.id == p->device && map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            DRV_RETURN(CUDA_ERROR_INVALID_DEVICE); /* the pool's own device keeps access */
    pthread_mutex_lock(&clsimdrv_lock);
    for (size_t i = 0; i < count; i++)
        p->access[map[i].location.id] = map[i].flags;
    pthread_mutex_unlock(&clsimdrv_lock);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location)
{
    DRV_ENTER(cuMemPoolGetAccess, NULL, flags, memPool, location);
    struct pool *p = (struct pool *)memPool;
    if (!flags || !location || drv_pool_device(memPool) < 0 ||
        location->type != CU_MEM_LOCATION_TYPE_DEVICE || !drv_device_ok(location->id))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *flags = p->access[location->id];
    DRV_RETURN(CUDA_SUCCESS);
}

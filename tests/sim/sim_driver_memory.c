/* sim_driver_memory.c - TEST DOUBLE for CI: memory of the simulated
 * libcuda.so.1.  "Device" memory is host memory (aligned_alloc); a registry
 * of ranges remembers each allocation's CUPTI memory kind (DEVICE, PINNED
 * for cuMemAllocHost/cuMemHostAlloc/cuMemHostRegister, MANAGED); anything
 * else is PAGEABLE host memory.  Copies and memsets really happen (so apps
 * see correct data) and produce CUpti_ActivityMemcpy6 / MemcpyPtoP4 /
 * Memset4 records timed on the stream's simulated timeline: ~5 GB/s from
 * or to pageable memory, ~25 GB/s pinned, ~1000 GB/s device to device.
 * The copy is made at the call, on the caller's thread, so it faults on
 * host pages the CPU may not touch; CUDALENS_SIM_DMA=1 makes the async
 * copies of pinned or managed memory like a real copy engine's, which the
 * CPU's page protection does not stop (dma_move): pinned memory is then a
 * shared mapping with a second, unprotected view of the same pages (its
 * alias) that the copies use; other memory goes through /proc/self/mem.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sim_driver.h"

struct range {
    uintptr_t base;
    size_t size;
    int kind;        /* CUpti_ActivityMemoryKind */
    int device;
    int registered;  /* cuMemHostRegister'ed user memory (not ours to free) */
    void *pool;      /* stream-ordered: the memory pool (sim_driver_vmm.c) */
    uintptr_t alias; /* CUDALENS_SIM_DMA: the copy engine's view of the pages */
};

static struct range *g_r;
static size_t g_n, g_cap;

/* index of the first range with base > p */
static size_t upper(uintptr_t p)
{
    size_t lo = 0, hi = g_n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g_r[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct range *find(uintptr_t p)
{
    size_t i = upper(p);
    if (i == 0)
        return NULL;
    struct range *r = &g_r[i - 1];
    return p < r->base + (r->size ? r->size : 1) ? r : NULL;
}

static void add_pool(uintptr_t base, size_t size, int kind, int device, int registered,
                     void *pool)
{
    size_t i;
    pthread_mutex_lock(&clsimdrv_lock);
    if (g_n == g_cap) {
        g_cap = g_cap ? 2 * g_cap : 64;
        g_r = realloc(g_r, g_cap * sizeof *g_r);
    }
    i = upper(base);
    memmove(&g_r[i + 1], &g_r[i], (g_n - i) * sizeof *g_r);
    g_r[i] = (struct range){ base, size, kind, device, registered, pool, 0 };
    g_n++;
    pthread_mutex_unlock(&clsimdrv_lock);
}

static void add(uintptr_t base, size_t size, int kind, int device, int registered)
{
    add_pool(base, size, kind, device, registered, NULL);
}

void drv_mem_add(uintptr_t base, size_t size, int device)
{
    add_pool(base, size, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, device, 0, NULL);
}

size_t drv_mem_remove_within(uintptr_t base, size_t size)
{
    pthread_mutex_lock(&clsimdrv_lock);
    size_t i = base ? upper(base - 1) : 0, k = i;  /* the first at or after base */
    while (k < g_n && g_r[k].base - base < size)
        k++;
    memmove(&g_r[i], &g_r[k], (g_n - k) * sizeof *g_r);
    g_n -= k - i;
    pthread_mutex_unlock(&clsimdrv_lock);
    return k - i;
}

void *drv_mem_pool(uintptr_t p)
{
    void *pool = NULL;
    pthread_mutex_lock(&clsimdrv_lock);
    struct range *r = find(p);
    if (r)
        pool = r->pool;
    pthread_mutex_unlock(&clsimdrv_lock);
    return pool;
}

/* removes the range starting exactly at base; returns 0 if none */
static int del(uintptr_t base, int want_kind, int registered, struct range *out)
{
    int ok = 0;
    pthread_mutex_lock(&clsimdrv_lock);
    struct range *r = find(base);
    if (r && r->base == base && (want_kind < 0 || r->kind == want_kind) &&
        r->registered == registered) {
        *out = *r;
        size_t i = (size_t)(r - g_r);
        memmove(&g_r[i], &g_r[i + 1], (g_n - i - 1) * sizeof *g_r);
        g_n--;
        ok = 1;
    }
    pthread_mutex_unlock(&clsimdrv_lock);
    return ok;
}

static int kind_of(const void *p, int *device)
{
    int k = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    pthread_mutex_lock(&clsimdrv_lock);
    struct range *r = find((uintptr_t)p);
    if (r) {
        k = r->kind;
        if (device)
            *device = r->device;
    }
    pthread_mutex_unlock(&clsimdrv_lock);
    return k;
}

int clsimdrv_ptr_info(const void *p, int *memkind, int *device, void **base, size_t *size,
                      int *registered)
{
    int found = 0;
    pthread_mutex_lock(&clsimdrv_lock);
    struct range *r = find((uintptr_t)p);
    if (r) {
        found = 1;
        if (memkind) *memkind = r->kind;
        if (device) *device = r->device;
        if (base) *base = (void *)r->base;
        if (size) *size = r->size;
        if (registered) *registered = r->registered;
    }
    pthread_mutex_unlock(&clsimdrv_lock);
    return found;
}

/* ---- allocation ------------------------------------------------------------- */

static int dma_mode(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("CUDALENS_SIM_DMA");
        on = e && !strcmp(e, "1");
    }
    return on;
}

/* CUDALENS_SIM_DMA: pinned memory mapped twice from one memfd; *alias is
 * the second view (NULL on failure: aligned_alloc then) */
static void *dma_alloc(size_t bytes, void **alias)
{
    size_t n = (bytes + 4095) & ~(size_t)4095;
    void *p = MAP_FAILED, *a = MAP_FAILED;
    int fd = memfd_create("clsim-pinned", MFD_CLOEXEC);
    if (fd >= 0 && !ftruncate(fd, (off_t)n)) {
        p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        a = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED || a == MAP_FAILED) {
        if (p != MAP_FAILED)
            munmap(p, n);
        if (a != MAP_FAILED)
            munmap(a, n);
        return NULL;
    }
    *alias = a;
    return p;
}

static CUresult alloc_in(void **out, size_t bytes, int kind, void *pool, int device)
{
    struct sim_ctx *c = drv_ctx();
    void *p;
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    if (bytes == 0) {
        *out = NULL;
        return kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    }
    /* pinned and managed memory come from the driver's own page mappings
     * (never pages shared with the program's heap) */
    size_t align = kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED ||
                   kind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED ? 4096 : 256;
    void *alias = NULL;
    p = kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED && dma_mode() ? dma_alloc(bytes, &alias) : NULL;
    if (!p)
        p = aligned_alloc(align, (bytes + align - 1) & ~(align - 1));
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memset(p, 0xcd, bytes);  /* uninitialized device memory is not zero */
    add_pool((uintptr_t)p, bytes, kind, device >= 0 ? device : c->device, 0, pool);
    if (alias) {
        pthread_mutex_lock(&clsimdrv_lock);
        find((uintptr_t)p)->alias = (uintptr_t)alias;
        pthread_mutex_unlock(&clsimdrv_lock);
    }
    *out = p;
    return CUDA_SUCCESS;
}

static CUresult alloc(void **out, size_t bytes, int kind)
{
    return alloc_in(out, bytes, kind, NULL, -1);
}

static CUresult release(const void *p, int kind)
{
    struct range r;
    if (!p)
        return CUDA_SUCCESS;
    if (!drv_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!del((uintptr_t)p, kind, 0, &r))
        return CUDA_ERROR_INVALID_VALUE;
    if (r.alias) {
        munmap((void *)r.base, (r.size + 4095) & ~(size_t)4095);
        munmap((void *)r.alias, (r.size + 4095) & ~(size_t)4095);
    } else {
        free((void *)r.base);
    }
    return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    DRV_ENTER(cuMemAlloc_v2, NULL, dptr, bytesize);
    DRV_RETURN(alloc((void **)dptr, bytesize, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE));
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    DRV_ENTER(cuMemAllocManaged, NULL, dptr, bytesize, flags);
    if (bytesize == 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    DRV_RETURN(alloc((void **)dptr, bytesize, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED));
}

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    DRV_ENTER(cuMemAllocAsync, NULL, dptr, bytesize, hStream);
    struct sim_ctx *c = drv_ctx();
    if (c && !drv_stream(hStream))
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    /* from the current pool of the context's device: its default pool */
    DRV_RETURN(alloc_in((void **)dptr, bytesize, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        c ? drv_default_pool(c->device) : NULL, -1));
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                 CUstream hStream)
{
    DRV_ENTER(cuMemAllocFromPoolAsync, NULL, dptr, bytesize, pool, hStream);
    if (drv_ctx() && !drv_stream(hStream))
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    int device = drv_pool_device(pool);
    if (device < 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    DRV_RETURN(alloc_in((void **)dptr, bytesize, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, pool,
                        device));
}

CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    DRV_ENTER(cuMemFree_v2, NULL, dptr);
    struct sim_ctx *c = drv_ctx();
    /* cuMemFree synchronizes the device before freeing */
    if (c)
        drv_wait_until(drv_ctx_tail(c));
    int k = kind_of((void *)dptr, NULL);
    if (k != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE && k != CUPTI_ACTIVITY_MEMORY_KIND_MANAGED && dptr)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    DRV_RETURN(release((void *)dptr, -1));
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    DRV_ENTER(cuMemFreeAsync, NULL, dptr, hStream);
    if (drv_ctx() && !drv_stream(hStream))
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    DRV_RETURN(release((void *)dptr, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE));
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    DRV_ENTER(cuMemAllocHost_v2, NULL, pp, bytesize);
    DRV_RETURN(alloc(pp, bytesize, CUPTI_ACTIVITY_MEMORY_KIND_PINNED));
}

CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    DRV_ENTER(cuMemHostAlloc, NULL, pp, bytesize, Flags);
    DRV_RETURN(alloc(pp, bytesize, CUPTI_ACTIVITY_MEMORY_KIND_PINNED));
}

CUresult cuMemFreeHost(void *p)
{
    DRV_ENTER(cuMemFreeHost, NULL, p);
    DRV_RETURN(release(p, CUPTI_ACTIVITY_MEMORY_KIND_PINNED));
}

CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    DRV_ENTER(cuMemHostRegister_v2, NULL, p, bytesize, Flags);
    struct sim_ctx *c = drv_ctx();
    if (!c)
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!p || !bytesize)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (clsimdrv_ptr_info(p, NULL, NULL, NULL, NULL, NULL) ||
        clsimdrv_ptr_info((char *)p + bytesize - 1, NULL, NULL, NULL, NULL, NULL))
        DRV_RETURN(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    add((uintptr_t)p, bytesize, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, c->device, 1);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemHostUnregister(void *p)
{
    DRV_ENTER(cuMemHostUnregister, NULL, p);
    struct range r;
    if (!drv_ctx())
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!del((uintptr_t)p, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 1, &r))
        DRV_RETURN(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuMemGetInfo_v2(size_t *free_, size_t *total)
{
    DRV_ENTER(cuMemGetInfo_v2, NULL, free_, total);
    struct sim_ctx *c = drv_ctx();
    if (!c)
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (total)
        *total = clsimdrv_device_mem(c->device);
    if (free_)
        *free_ = clsimdrv_device_mem(c->device) - ((size_t)1 << 30);
    DRV_RETURN(CUDA_SUCCESS);
}

/* ---- prefetch -------------------------------------------------------------- */

/* Checked like the real driver, without effect: the simulated device sees
 * all memory.  Managed memory only (the simulator has no HMM). */
CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                               unsigned int flags, CUstream hStream)
{
    DRV_ENTER(cuMemPrefetchAsync_v2, NULL, devPtr, count, location, flags, hStream);
    if (!drv_ctx())
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!drv_stream(hStream))
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (flags != 0 || count == 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&clsimdrv_lock);
    struct range *p = find((uintptr_t)devPtr);
    int ok = p && p->kind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED &&
             devPtr + count <= p->base + p->size;
    pthread_mutex_unlock(&clsimdrv_lock);
    DRV_RETURN(ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

/* ---- copies and memsets ------------------------------------------------------ */

static int is_dev(int kind)
{
    return kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE || kind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
}

static uint64_t duration(size_t bytes, int srck, int dstk)
{
    int pageable = srck == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE ||
                   dstk == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    int pinned = srck == CUPTI_ACTIVITY_MEMORY_KIND_PINNED || dstk == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    uint64_t bytes_per_us = pageable ? 5000 : pinned ? 25000 : 1000000;
    return 1000 + (uint64_t)bytes * 1000 / bytes_per_us;  /* ns, with 1 us latency */
}

/* p as the copy engine sees it: through the alias of its pinned memory,
 * or p itself (device memory, never protected); NULL: host memory
 * without an alias (registered, managed) */
static void *dma_view(const void *p)
{
    void *v = NULL;
    pthread_mutex_lock(&clsimdrv_lock);
    struct range *r = find((uintptr_t)p);
    if (r && r->alias)
        v = (char *)r->alias + ((uintptr_t)p - r->base);
    else if (r && r->kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE)
        v = (void *)p;
    pthread_mutex_unlock(&clsimdrv_lock);
    return v;
}

/* CUDALENS_SIM_DMA=1: move n bytes as a DMA engine does, past the CPU's
 * page protection: through the views of dma_view, or else through
 * /proc/self/mem (the kernel's access there forces it) by a bounce buffer,
 * so either side may be protected; 0 when not asked for or not possible
 * (the caller then uses memmove) */
static int dma_move(void *dst, const void *src, size_t n)
{
    static int fd = -2;
    if (!dma_mode())
        return 0;
    void *d = dma_view(dst), *s = dma_view(src);
    if (d && s) {
        memmove(d, s, n);
        return 1;
    }
    if (fd == -2)
        fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char *b = malloc(n);
    int ok = b && pread(fd, b, n, (off_t)(uintptr_t)src) == (ssize_t)n &&
             pwrite(fd, b, n, (off_t)(uintptr_t)dst) == (ssize_t)n;
    free(b);
    return ok;
}

/* want: CUpti_ActivityMemcpyKind the API asserts (0: infer, unified) */
static CUresult copy(void *dst, const void *src, size_t n, int want, CUstream h, int async)
{
    struct sim_stream *cs = drv_stream(h);
    struct sim_gnode *node;
    if (cs && cs->cap) {
        /* captured into a graph, not run (sync copies may not be captured) */
        if (!async)
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        if (!(node = drv_capture_node(cs, CU_GRAPH_NODE_TYPE_MEMCPY)))
            return CUDA_ERROR_OUT_OF_MEMORY;
        int sdev, ddev;
        int sk = kind_of(src, &sdev), dk = kind_of(dst, &ddev);
        node->m.srcMemoryType = is_dev(sk) ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
        node->m.dstMemoryType = is_dev(dk) ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
        node->m.srcHost = src;
        node->m.srcDevice = (CUdeviceptr)src;
        node->m.dstHost = dst;
        node->m.dstDevice = (CUdeviceptr)dst;
        node->m.WidthInBytes = n;
        node->m.Height = node->m.Depth = 1;
        (void)want;
        return CUDA_SUCCESS;
    }
    return drv_copy(dst, src, n, want, h, async);
}

CUresult drv_copy(void *dst, const void *src, size_t n, int want, CUstream h, int async)
{
    struct sim_ctx *c = drv_ctx();
    struct sim_stream *s;
    int sk, dk, sdev = -1, ddev = -1, ck;
    uint64_t st, en;
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!(s = drv_stream(h)))
        return CUDA_ERROR_INVALID_HANDLE;
    if (n == 0)
        return CUDA_SUCCESS;
    if (!dst || !src)
        return CUDA_ERROR_INVALID_VALUE;
    sk = kind_of(src, &sdev);
    dk = kind_of(dst, &ddev);
    ck = is_dev(sk) ? (is_dev(dk) ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOD : CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
                    : (is_dev(dk) ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD : CUPTI_ACTIVITY_MEMCPY_KIND_HTOH);
    if (want && want != ck)
        return CUDA_ERROR_INVALID_VALUE;  /* e.g. cuMemcpyHtoD to a host pointer */
    if (!async || sk == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE || dk == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE ||
        !dma_move(dst, src, n))
        memmove(dst, src, n);
    drv_schedule(s, duration(n, sk, dk), &st, &en);
    if (clsim_activity_wanted(CUPTI_ACTIVITY_KIND_MEMCPY)) {
        CUpti_ActivityMemcpy6 r;
        memset(&r, 0, sizeof r);
        r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        r.copyKind = (uint8_t)ck;
        r.srcKind = (uint8_t)sk;
        r.dstKind = (uint8_t)dk;
        r.flags = async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
        r.bytes = n;
        r.start = st;
        r.end = en;
        r.deviceId = (uint32_t)c->device;
        r.contextId = c->uid;
        r.streamId = s->id;
        r.correlationId = clsim_work_correlation();
        r.runtimeCorrelationId = r.correlationId;
        r.copyCount = 1;
        clsim_activity_add(&r, sizeof r);
    }
    /* synchronous copies return when done; so do "async" ones that involve
     * pageable memory (staged through a pinned buffer) */
    if (!async || sk == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE || dk == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE)
        drv_wait_until(en);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    DRV_ENTER(cuMemcpyHtoD_v2, NULL, dstDevice, srcHost, ByteCount);
    DRV_RETURN(copy((void *)dstDevice, srcHost, ByteCount, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, NULL, 0));
}

CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    DRV_ENTER(cuMemcpyDtoH_v2, NULL, dstHost, srcDevice, ByteCount);
    DRV_RETURN(copy(dstHost, (void *)srcDevice, ByteCount, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, NULL, 0));
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    DRV_ENTER(cuMemcpyDtoD_v2, NULL, dstDevice, srcDevice, ByteCount);
    DRV_RETURN(copy((void *)dstDevice, (void *)srcDevice, ByteCount, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, NULL, 0));
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    DRV_ENTER(cuMemcpy, NULL, dst, src, ByteCount);
    DRV_RETURN(copy((void *)dst, (void *)src, ByteCount, 0, NULL, 0));
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                              CUstream hStream)
{
    DRV_ENTER(cuMemcpyHtoDAsync_v2, NULL, dstDevice, srcHost, ByteCount, hStream);
    DRV_RETURN(copy((void *)dstDevice, srcHost, ByteCount, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, hStream, 1));
}

CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                              CUstream hStream)
{
    DRV_ENTER(cuMemcpyDtoHAsync_v2, NULL, dstHost, srcDevice, ByteCount, hStream);
    DRV_RETURN(copy(dstHost, (void *)srcDevice, ByteCount, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, hStream, 1));
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                              CUstream hStream)
{
    DRV_ENTER(cuMemcpyDtoDAsync_v2, NULL, dstDevice, srcDevice, ByteCount, hStream);
    DRV_RETURN(copy((void *)dstDevice, (void *)srcDevice, ByteCount, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, hStream, 1));
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    DRV_ENTER(cuMemcpyAsync, NULL, dst, src, ByteCount, hStream);
    DRV_RETURN(copy((void *)dst, (void *)src, ByteCount, 0, hStream, 1));
}

/* peer copies: MEMCPY2 records (CUpti_ActivityMemcpyPtoP4) when that kind is
 * enabled, else MEMCPY records with copyKind PTOP */
static CUresult peer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n,
                     CUstream h, int async)
{
    struct sim_ctx *c = drv_ctx(), *dc = drv_ctx_check(dctx), *sc = drv_ctx_check(sctx);
    struct sim_stream *s;
    uint64_t st, en;
    int sk, dk;
    if (!c || !dc || !sc)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!(s = drv_stream(h)))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!n)
        return CUDA_SUCCESS;
    sk = kind_of((void *)src, NULL);
    dk = kind_of((void *)dst, NULL);
    if (!is_dev(sk) || !is_dev(dk))
        return CUDA_ERROR_INVALID_VALUE;
    memmove((void *)dst, (void *)src, n);
    drv_schedule(s, 1000 + (uint64_t)n / 50, &st, &en);  /* ~50 GB/s */
    if (clsim_activity_wanted(CUPTI_ACTIVITY_KIND_MEMCPY2)) {
        CUpti_ActivityMemcpyPtoP4 r;
        memset(&r, 0, sizeof r);
        r.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
        r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
        r.srcKind = (uint8_t)sk;
        r.dstKind = (uint8_t)dk;
        r.flags = async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
        r.bytes = n;
        r.start = st;
        r.end = en;
        r.deviceId = (uint32_t)c->device;
        r.contextId = c->uid;
        r.streamId = s->id;
        r.srcDeviceId = (uint32_t)sc->device;
        r.srcContextId = sc->uid;
        r.dstDeviceId = (uint32_t)dc->device;
        r.dstContextId = dc->uid;
        r.correlationId = clsim_work_correlation();
        clsim_activity_add(&r, sizeof r);
    } else if (clsim_activity_wanted(CUPTI_ACTIVITY_KIND_MEMCPY)) {
        CUpti_ActivityMemcpy6 r;
        memset(&r, 0, sizeof r);
        r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
        r.srcKind = (uint8_t)sk;
        r.dstKind = (uint8_t)dk;
        r.flags = async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
        r.bytes = n;
        r.start = st;
        r.end = en;
        r.deviceId = (uint32_t)c->device;
        r.contextId = c->uid;
        r.streamId = s->id;
        r.correlationId = clsim_work_correlation();
        r.runtimeCorrelationId = r.correlationId;
        r.copyCount = 1;
        clsim_activity_add(&r, sizeof r);
    }
    if (!async)
        drv_wait_until(en);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                      CUcontext srcContext, size_t ByteCount)
{
    DRV_ENTER(cuMemcpyPeer, NULL, dstDevice, dstContext, srcDevice, srcContext, ByteCount);
    DRV_RETURN(peer(dstDevice, dstContext, srcDevice, srcContext, ByteCount, NULL, 0));
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                           CUcontext srcContext, size_t ByteCount, CUstream hStream)
{
    DRV_ENTER(cuMemcpyPeerAsync, NULL, dstDevice, dstContext, srcDevice, srcContext, ByteCount,
              hStream);
    DRV_RETURN(peer(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, 1));
}

static CUresult memset_(CUdeviceptr dst, unsigned value, size_t elsize, size_t n, CUstream h,
                        int async)
{
    struct sim_stream *cs = drv_stream(h);
    if (cs && cs->cap) {
        struct sim_gnode *node;
        if (!async)
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        if (!(node = drv_capture_node(cs, CU_GRAPH_NODE_TYPE_MEMSET)))
            return CUDA_ERROR_OUT_OF_MEMORY;
        node->ms.dst = dst;
        node->ms.value = value;
        node->ms.elementSize = (unsigned)elsize;
        node->ms.width = n;
        node->ms.height = 1;
        node->ms.pitch = n * elsize;
        return CUDA_SUCCESS;
    }
    return drv_memset(dst, value, elsize, n, h, async);
}

CUresult drv_memset(CUdeviceptr dst, unsigned value, size_t elsize, size_t n, CUstream h,
                    int async)
{
    struct sim_ctx *c = drv_ctx();
    struct sim_stream *s;
    size_t bytes = n * elsize;
    uint64_t st, en;
    int dk, ddev;
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!(s = drv_stream(h)))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!n)
        return CUDA_SUCCESS;
    dk = kind_of((void *)dst, &ddev);
    if (dk == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE)
        return CUDA_ERROR_INVALID_VALUE;
    if (elsize == 1) {
        memset((void *)dst, (int)(value & 0xff), n);
    } else {
        for (size_t i = 0; i < n; i++)
            memcpy((char *)dst + i * elsize, &value, elsize);  /* little endian */
    }
    drv_schedule(s, 1000 + bytes / 1000, &st, &en);
    if (clsim_activity_wanted(CUPTI_ACTIVITY_KIND_MEMSET)) {
        CUpti_ActivityMemset4 r;
        memset(&r, 0, sizeof r);
        r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
        r.value = value;
        r.bytes = bytes;
        r.start = st;
        r.end = en;
        r.deviceId = (uint32_t)c->device;
        r.contextId = c->uid;
        r.streamId = s->id;
        r.correlationId = clsim_work_correlation();
        r.flags = async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : 0;
        r.memoryKind = (uint16_t)dk;
        clsim_activity_add(&r, sizeof r);
    }
    if (dk == CUPTI_ACTIVITY_MEMORY_KIND_PINNED && !async)
        drv_wait_until(en);
    return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    DRV_ENTER(cuMemsetD8_v2, NULL, dstDevice, uc, N);
    DRV_RETURN(memset_(dstDevice, uc, 1, N, NULL, 0));
}

CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    DRV_ENTER(cuMemsetD16_v2, NULL, dstDevice, us, N);
    DRV_RETURN(memset_(dstDevice, us, 2, N, NULL, 0));
}

CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    DRV_ENTER(cuMemsetD32_v2, NULL, dstDevice, ui, N);
    DRV_RETURN(memset_(dstDevice, ui, 4, N, NULL, 0));
}

CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{
    DRV_ENTER(cuMemsetD8Async, NULL, dstDevice, uc, N, hStream);
    DRV_RETURN(memset_(dstDevice, uc, 1, N, hStream, 1));
}

CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
    DRV_ENTER(cuMemsetD32Async, NULL, dstDevice, ui, N, hStream);
    DRV_RETURN(memset_(dstDevice, ui, 4, N, hStream, 1));
}

/* ---- managed memory attachment ------------------------------------------------ */

/* The attachment is only checked: the simulated device sees all memory. */
CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length,
                                unsigned int flags)
{
    DRV_ENTER(cuStreamAttachMemAsync, NULL, hStream, dptr, length, flags);
    struct range r;
    int found = 0;
    if (!drv_ctx())
        DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
    if (!drv_stream(hStream))
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST &&
        flags != CU_MEM_ATTACH_SINGLE)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&clsimdrv_lock);
    struct range *p = find((uintptr_t)dptr);
    if (p) {
        r = *p;
        found = 1;
    }
    pthread_mutex_unlock(&clsimdrv_lock);
    /* managed memory, and all of the allocation (length 0 or its size) */
    if (!found || r.kind != CUPTI_ACTIVITY_MEMORY_KIND_MANAGED || r.base != dptr ||
        (length && length != r.size))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    DRV_RETURN(CUDA_SUCCESS);
}

/* sim_selftest.c - TEST DOUBLE support: a minimal CUPTI subscriber, loaded
 * with LD_PRELOAD, that prints every callback and activity record it gets,
 * one line each, so that tests/sim/sim_check.sh can check the simulated
 * CUDA stack (and, built against the real libraries, compare with a GPU).
 * For each kernel launch seen in the driver domain it prints the parameter
 * layout from cuFuncGetParamInfo.  Output: $CUDALENS_SIM_SELFTEST_OUT
 * (appended) or stderr.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static CUpti_SubscriberHandle sub;

static const char *memkind(int k)
{
    static const char *n[] = { "UNKNOWN", "PAGEABLE", "PINNED", "DEVICE", "ARRAY", "MANAGED",
                               "DEVICE_STATIC", "MANAGED_STATIC" };
    return k >= 0 && k < 8 ? n[k] : "?";
}

static const char *copykind(int k)
{
    static const char *n[] = { "UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH", "ATOA", "ATOD",
                               "DTOA", "DTOD", "HTOH", "PTOP" };
    return k >= 0 && k < 11 ? n[k] : "?";
}

static uint32_t ctxid(CUcontext c)
{
    uint32_t id = 0;
    if (c)
        cuptiGetContextId(c, &id);
    return id;
}

/* cuLaunchKernel's f is a CUfunction for driver-API launches but a CUkernel
 * for launches from cudart 13 (measured on an H100: cuFuncGetParamInfo on it
 * fails with CUDA_ERROR_INVALID_HANDLE); try one, then the other. */
static void params(CUfunction f)
{
    const char *name = NULL;
    char line[1024];
    int n = 0, len, kernel = 0;
    CUresult fr = cuFuncGetName(&name, f);
    if (fr == CUDA_ERROR_INVALID_HANDLE && cuKernelGetName(&name, (CUkernel)f) == CUDA_SUCCESS)
        kernel = 1;
    len = snprintf(line, sizeof line, "PARAMS %s via=%s funcret=%d", name ? name : "?",
                   kernel ? "kernel" : "func", (int)fr);
    for (size_t i = 0;; i++) {
        size_t off, size;
        CUresult r = kernel ? cuKernelGetParamInfo((CUkernel)f, i, &off, &size)
                            : cuFuncGetParamInfo(f, i, &off, &size);
        if (r != CUDA_SUCCESS) {
            len += snprintf(line + len, sizeof line - (size_t)len, " end=%d", (int)r);
            break;
        }
        len += snprintf(line + len, sizeof line - (size_t)len, " %zu:%zu+%zu", i, off, size);
        if (++n > 64 || (size_t)len > sizeof line - 64)
            break;
    }
    fprintf(out, "%s\n", line);
}

static void CUPTIAPI callback(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId cbid,
                              const void *data)
{
    (void)ud;
    if (d == CUPTI_CB_DOMAIN_RUNTIME_API || d == CUPTI_CB_DOMAIN_DRIVER_API) {
        const CUpti_CallbackData *cb = data;
        int rt = d == CUPTI_CB_DOMAIN_RUNTIME_API;
        int ret = 0;
        if (cb->callbackSite == CUPTI_API_EXIT && cb->functionReturnValue)
            ret = *(const int *)cb->functionReturnValue;
        if (cb->callbackSite == CUPTI_API_ENTER)
            *cb->correlationData = cb->correlationId * 10u;  /* must survive to EXIT */
        fprintf(out, "API %s %s %s cbid=%u corr=%u ctx=%u%s%s ret=%d%s\n", rt ? "RT" : "DRV",
                cb->callbackSite == CUPTI_API_ENTER ? "ENTER" : "EXIT", cb->functionName,
                (unsigned)cbid, cb->correlationId, cb->contextUid,
                cb->symbolName ? " sym=" : "", cb->symbolName ? cb->symbolName : "", ret,
                cb->callbackSite == CUPTI_API_EXIT &&
                        *cb->correlationData != cb->correlationId * 10u
                    ? " CORRDATA-LOST" : "");
        static __thread int busy;  /* our own driver calls raise callbacks too */
        if (!rt && cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel &&
            cb->callbackSite == CUPTI_API_ENTER && !busy) {
            busy = 1;
            params(((const cuLaunchKernel_params *)cb->functionParams)->f);
            busy = 0;
        }
        if (rt && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 &&
            cb->callbackSite == CUPTI_API_ENTER) {
            const cudaMemcpyAsync_v3020_params *p = cb->functionParams;
            fprintf(out, "MEMCPYASYNC count=%zu kind=%d\n", p->count, (int)p->kind);
        }
    } else if (d == CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_ResourceData *r = data;
        uint32_t dev = 0, sid = 0;
        if (cbid != CUPTI_CBID_RESOURCE_CONTEXT_CREATED &&
            cbid != CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING &&
            cbid != CUPTI_CBID_RESOURCE_STREAM_CREATED &&
            cbid != CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING) {
            fprintf(out, "RES cbid=%u\n", (unsigned)cbid);  /* others carry other data */
            return;
        }
        cuptiGetDeviceId(r->context, &dev);
        if (cbid == CUPTI_CBID_RESOURCE_STREAM_CREATED ||
            cbid == CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING)
            cuptiGetStreamIdEx(r->context, r->resourceHandle.stream, 0, &sid);
        fprintf(out, "RES %s ctx=%u dev=%u stream=%u\n",
                cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED ? "CONTEXT_CREATED"
                : cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING ? "CONTEXT_DESTROY_STARTING"
                : cbid == CUPTI_CBID_RESOURCE_STREAM_CREATED ? "STREAM_CREATED"
                : cbid == CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING ? "STREAM_DESTROY_STARTING"
                : "OTHER",
                ctxid(r->context), dev, sid);
    } else if (d == CUPTI_CB_DOMAIN_SYNCHRONIZE) {
        const CUpti_SynchronizeData *s = data;
        uint32_t sid = 0;
        if (s->stream)
            cuptiGetStreamIdEx(s->context, s->stream, 0, &sid);
        fprintf(out, "SYNC %s ctx=%u stream=%u\n",
                cbid == CUPTI_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED ? "STREAM_SYNCHRONIZED"
                                                                   : "CONTEXT_SYNCHRONIZED",
                ctxid(s->context), sid);
    }
}

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max)
{
    *size = 64 * 1024;
    *buffer = aligned_alloc(8, *size);
    *max = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t streamId, uint8_t *buffer, size_t size,
                               size_t valid)
{
    CUpti_Activity *rec = NULL;
    size_t dropped = 0;
    (void)ctx, (void)streamId, (void)size;
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            CUpti_ActivityMemcpy6 *m = (void *)rec;
            fprintf(out, "ACT MEMCPY %s src=%s dst=%s bytes=%llu async=%d corr=%u dev=%u ctx=%u "
                    "stream=%u dur=%llu\n", copykind(m->copyKind), memkind(m->srcKind),
                    memkind(m->dstKind), (unsigned long long)m->bytes,
                    !!(m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC), m->correlationId,
                    m->deviceId, m->contextId, m->streamId,
                    (unsigned long long)(m->end - m->start));
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY2: {
            CUpti_ActivityMemcpyPtoP4 *m = (void *)rec;
            fprintf(out, "ACT MEMCPY2 %s src=%s dst=%s bytes=%llu srcdev=%u dstdev=%u corr=%u "
                    "stream=%u\n", copykind(m->copyKind), memkind(m->srcKind),
                    memkind(m->dstKind), (unsigned long long)m->bytes, m->srcDeviceId,
                    m->dstDeviceId, m->correlationId, m->streamId);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            CUpti_ActivityMemset4 *m = (void *)rec;
            fprintf(out, "ACT MEMSET kind=%s value=%u bytes=%llu async=%d corr=%u stream=%u\n",
                    memkind(m->memoryKind), m->value, (unsigned long long)m->bytes,
                    !!(m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC), m->correlationId,
                    m->streamId);
            break;
        }
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            CUpti_ActivityKernel10 *k = (void *)rec;
            fprintf(out, "ACT KERNEL %s grid=%d,%d,%d block=%d,%d,%d corr=%u dev=%u ctx=%u "
                    "stream=%u dur=%llu\n", k->name, k->gridX, k->gridY, k->gridZ, k->blockX,
                    k->blockY, k->blockZ, k->correlationId, k->deviceId, k->contextId,
                    k->streamId, (unsigned long long)(k->end - k->start));
            break;
        }
        default:
            fprintf(out, "ACT kind=%d\n", (int)rec->kind);
        }
    }
    cuptiActivityGetNumDroppedRecords(ctx, streamId, &dropped);
    if (dropped)
        fprintf(out, "ACT DROPPED %zu\n", dropped);
    free(buffer);
}

static void finish(void)
{
    cuptiActivityFlushAll(1);
    fprintf(out, "SELFTEST END\n");
    fflush(out);
}

__attribute__((constructor)) static void init(void)
{
    const char *path = getenv("CUDALENS_SIM_SELFTEST_OUT");
    const char *err;
    CUptiResult r;
    out = path ? fopen(path, "a") : NULL;
    if (!out)
        out = stderr;
    setvbuf(out, NULL, _IOLBF, 0);
    r = cuptiSubscribe(&sub, callback, NULL);
    if (r != CUPTI_SUCCESS) {
        cuptiGetResultString(r, &err);
        fprintf(out, "SUBSCRIBE FAILED %s\n", err);
    } else {
        CUpti_SubscriberHandle second;
        r = cuptiSubscribe(&second, callback, NULL);
        cuptiGetResultString(r, &err);
        fprintf(out, "SUBSCRIBE OK (second: %s)\n", err);
        cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
        cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
        cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE);
        cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_SYNCHRONIZE);
    }
    cuptiActivityRegisterCallbacks(requested, completed);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY2);
    atexit(finish);
}

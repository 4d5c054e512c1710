/* sim_activity.c - TEST DOUBLE for CI: the activity half of the simulated
 * libcupti.so.13.  The sim driver hands it finished records (real
 * CUpti_ActivityMemcpy6 / Memset4 / Kernel10 / MemcpyPtoP4 structs); it
 * packs them into buffers requested from the client and hands the buffers
 * back when full, at cuptiActivityFlushAll and at context destroy (the
 * driver calls clsim_activity_flush then).  Client callbacks run on the
 * thread that filled or flushed the buffer (real CUPTI uses its own thread).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

static pthread_mutex_t g_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static CUpti_BuffersCallbackRequestFunc g_request;
static CUpti_BuffersCallbackCompleteFunc g_complete;
static uint8_t g_enabled[CUPTI_ACTIVITY_KIND_COUNT];
static uint8_t *g_buf;
static size_t g_cap, g_used;
static size_t g_dropped;

static size_t record_size(CUpti_ActivityKind kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
    default: return 0;
    }
}

int clsim_activity_wanted(CUpti_ActivityKind kind)
{
    return (unsigned)kind < CUPTI_ACTIVITY_KIND_COUNT &&
           __atomic_load_n(&g_enabled[kind], __ATOMIC_RELAXED) && g_request && g_complete;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
    if ((unsigned)kind >= CUPTI_ACTIVITY_KIND_COUNT)
        return CUPTI_ERROR_INVALID_KIND;
    if (!record_size(kind))
        return CUPTI_ERROR_NOT_COMPATIBLE;  /* kinds the sim never produces */
    __atomic_store_n(&g_enabled[kind], 1, __ATOMIC_RELAXED);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
    if ((unsigned)kind >= CUPTI_ACTIVITY_KIND_COUNT)
        return CUPTI_ERROR_INVALID_KIND;
    __atomic_store_n(&g_enabled[kind], 0, __ATOMIC_RELAXED);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                                           CUpti_BuffersCallbackCompleteFunc funcBufferCompleted)
{
    if (!funcBufferRequested || !funcBufferCompleted)
        return CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&g_lock);
    g_request = funcBufferRequested;
    g_complete = funcBufferCompleted;
    pthread_mutex_unlock(&g_lock);
    return CUPTI_SUCCESS;
}

/* Hands the current buffer back (lock held; the recursive lock lets the
 * client flush again from its completion callback). */
static void deliver(void)
{
    uint8_t *buf = g_buf;
    size_t cap = g_cap, used = g_used;
    if (!buf)
        return;
    g_buf = NULL;
    g_cap = g_used = 0;
    g_complete(NULL, 0, buf, cap, used);
}

void clsim_activity_add(const void *record, size_t size)
{
    pthread_mutex_lock(&g_lock);
    if (!g_request || !g_complete) {
        pthread_mutex_unlock(&g_lock);
        return;
    }
    if (g_buf && g_used + size > g_cap)
        deliver();
    if (!g_buf) {
        uint8_t *b = NULL;
        size_t sz = 0, maxrec = 0;
        g_request(&b, &sz, &maxrec);
        if (!b || sz < size) {
            g_dropped++;
            pthread_mutex_unlock(&g_lock);
            return;
        }
        g_buf = b;
        g_cap = sz & ~(size_t)7;
        g_used = 0;
    }
    memcpy(g_buf + g_used, record, size);
    g_used += (size + 7) & ~(size_t)7;
    pthread_mutex_unlock(&g_lock);
}

void clsim_activity_flush(void)
{
    pthread_mutex_lock(&g_lock);
    if (g_buf && g_used)
        deliver();
    pthread_mutex_unlock(&g_lock);
}

void clsim_activity_reset(void)
{
    pthread_mutex_lock(&g_lock);
    memset(g_enabled, 0, sizeof g_enabled);
    g_request = NULL;
    g_complete = NULL;
    pthread_mutex_unlock(&g_lock);
}

CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    pthread_mutex_lock(&g_lock);
    if (g_buf && (g_used || (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)))
        deliver();
    pthread_mutex_unlock(&g_lock);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlush(CUcontext context, uint32_t streamId, uint32_t flag)
{
    (void)context;
    (void)streamId;
    return cuptiActivityFlushAll(flag);
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t validBufferSizeBytes,
                                       CUpti_Activity **record)
{
    uint8_t *p;
    size_t sz;
    if (!buffer || !record)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (!*record) {
        p = buffer;
    } else {
        sz = record_size((*record)->kind);
        if (!sz)
            return CUPTI_ERROR_INVALID_KIND;
        p = (uint8_t *)*record + ((sz + 7) & ~(size_t)7);
    }
    if (p + sizeof(CUpti_ActivityKind) > buffer + validBufferSizeBytes) {
        *record = NULL;
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    }
    sz = record_size(((CUpti_Activity *)p)->kind);
    if (!sz)
        return CUPTI_ERROR_INVALID_KIND;
    if (p + sz > buffer + validBufferSizeBytes) {
        *record = NULL;
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    }
    *record = (CUpti_Activity *)p;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId,
                                              size_t *dropped)
{
    (void)context;
    (void)streamId;
    if (!dropped)
        return CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&g_lock);
    *dropped = g_dropped;
    g_dropped = 0;
    pthread_mutex_unlock(&g_lock);
    return CUPTI_SUCCESS;
}

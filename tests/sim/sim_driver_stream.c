/* sim_driver_stream.c - TEST DOUBLE for CI: streams, events, host functions
 * and synchronization of the simulated libcuda.so.1.
 *
 * Work runs at once on the host, but each stream keeps a simulated GPU
 * timeline (the end of its last work) used for activity timestamps: work
 * starts at max(now, stream tail), the legacy NULL stream waits for the
 * blocking streams of its context and they wait for it, events carry the
 * time they were recorded at, and a host synchronization waits until that
 * simulated time has passed.  CUDALENS_SIM_QUERY_NOT_READY=N makes the
 * first N stream/event queries of the process answer CUDA_ERROR_NOT_READY.
 * RESOURCE callbacks STREAM_CREATED / STREAM_DESTROY_STARTING and
 * SYNCHRONIZE callbacks STREAM_SYNCHRONIZED / CONTEXT_SYNCHRONIZED are
 * raised as real CUPTI does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim_driver.h"

struct sim_stream *clsimdrv_streams;
/* measured with CUPTI 13: the NULL stream is 7, created streams 13, 14, ... */
static uint32_t g_next_stream_id = 13;
static uint32_t g_next_legacy_id = 7;
/* host functions (below) */
static pthread_mutex_t hf_lock;
static void hostfn_wait_event(struct sim_event *e);

static __thread struct sim_stream *t_per_thread[CLSIM_MAX_DEVICES];

struct sim_stream *drv_stream_new(struct sim_ctx *c, unsigned flags, int priority,
                                  int legacy, int per_thread)
{
    struct sim_stream *s = calloc(1, sizeof *s);
    s->magic = CLSIM_MAGIC_STREAM;
    s->ctx = c;
    s->flags = flags;
    s->priority = priority;
    s->legacy = legacy;
    s->per_thread = per_thread;
    pthread_mutex_lock(&clsimdrv_lock);
    s->id = legacy && g_next_legacy_id < 13 ? g_next_legacy_id++ : g_next_stream_id++;
    s->next = clsimdrv_streams;
    clsimdrv_streams = s;
    pthread_mutex_unlock(&clsimdrv_lock);
    return s;
}

static struct sim_stream *stream_in(struct sim_ctx *c, CUstream h)
{
    struct sim_stream *s;
    if (!c)
        return NULL;
    if (h == NULL || h == CU_STREAM_LEGACY)
        return c->legacy;
    if (h == CU_STREAM_PER_THREAD) {
        s = t_per_thread[c->device];
        if (!s || s->ctx != c) {
            s = drv_stream_new(c, 0, 0, 0, 1);
            t_per_thread[c->device] = s;
        }
        return s;
    }
    s = (struct sim_stream *)h;
    return s->magic == CLSIM_MAGIC_STREAM ? s : NULL;
}

struct sim_stream *drv_stream(CUstream h)
{
    return stream_in(drv_ctx(), h);
}

uint32_t clsimdrv_stream_id(CUcontext ctx, CUstream h, int per_thread)
{
    struct sim_ctx *c = ctx ? drv_ctx_check(ctx) : drv_ctx();
    struct sim_stream *s;
    if (h && h != CU_STREAM_LEGACY && h != CU_STREAM_PER_THREAD) {
        s = (struct sim_stream *)h;
        return s->magic == CLSIM_MAGIC_STREAM ? s->id : 0;
    }
    if (per_thread && !h)
        h = CU_STREAM_PER_THREAD;
    s = stream_in(c, h);
    return s ? s->id : 0;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

void drv_schedule(struct sim_stream *s, uint64_t dur, uint64_t *start, uint64_t *end)
{
    uint64_t st = clsim_now();
    pthread_mutex_lock(&clsimdrv_lock);
    st = max64(st, s->tail);
    if (s->legacy) {
        for (struct sim_stream *o = clsimdrv_streams; o; o = o->next)
            if (o->ctx == s->ctx && o->magic == CLSIM_MAGIC_STREAM &&
                !(o->flags & CU_STREAM_NON_BLOCKING))
                st = max64(st, o->tail);
    } else if (!(s->flags & CU_STREAM_NON_BLOCKING) && s->ctx->legacy) {
        st = max64(st, s->ctx->legacy->tail);
    }
    s->tail = st + dur;
    pthread_mutex_unlock(&clsimdrv_lock);
    *start = st;
    *end = st + dur;
}

void drv_wait_until(uint64_t t)
{
    for (;;) {
        uint64_t now = clsim_now();
        struct timespec ts;
        if (now >= t)
            return;
        ts.tv_sec = (time_t)((t - now) / 1000000000ull);
        ts.tv_nsec = (long)((t - now) % 1000000000ull);
        nanosleep(&ts, NULL);
    }
}

uint64_t drv_ctx_tail(struct sim_ctx *c)
{
    uint64_t t = 0;
    pthread_mutex_lock(&clsimdrv_lock);
    for (struct sim_stream *s = clsimdrv_streams; s; s = s->next)
        if (s->ctx == c && s->magic == CLSIM_MAGIC_STREAM)
            t = max64(t, s->tail);
    pthread_mutex_unlock(&clsimdrv_lock);
    return t;
}

int clsimdrv_query_not_ready(void)
{
    static int left = -1;
    int v;
    if (__atomic_load_n(&left, __ATOMIC_RELAXED) < 0) {
        const char *e = getenv("CUDALENS_SIM_QUERY_NOT_READY");
        int n = e ? atoi(e) : 0;
        int expect = -1;
        __atomic_compare_exchange_n(&left, &expect, n > 0 ? n : 0, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
    }
    v = __atomic_load_n(&left, __ATOMIC_RELAXED);
    while (v > 0) {
        if (__atomic_compare_exchange_n(&left, &v, v - 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return 1;
    }
    return 0;
}

#define NEED_CTX() do { if (!drv_ctx()) DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT); } while (0)

/* ---- streams ---------------------------------------------------------------- */

static CUresult stream_create(CUstream *ph, unsigned flags, int priority)
{
    struct sim_ctx *c = drv_ctx();
    struct sim_stream *s;
    CUpti_ResourceData rd;
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!ph || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    if (priority > 0)
        priority = 0;
    if (priority < -5)
        priority = -5;
    s = drv_stream_new(c, flags, priority, 0, 0);
    *ph = (CUstream)s;
    memset(&rd, 0, sizeof rd);
    rd.context = (CUcontext)c;
    rd.resourceHandle.stream = (CUstream)s;
    clsim_raise(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_CREATED, &rd);
    return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    DRV_ENTER(cuStreamCreate, NULL, phStream, Flags);
    DRV_RETURN(stream_create(phStream, Flags, 0));
}

CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    DRV_ENTER(cuStreamCreateWithPriority, NULL, phStream, flags, priority);
    DRV_RETURN(stream_create(phStream, flags, priority));
}

CUresult cuStreamGetPriority(CUstream hStream, int *priority)
{
    DRV_ENTER(cuStreamGetPriority, NULL, hStream, priority);
    struct sim_stream *s = drv_stream(hStream);
    if (!s)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!priority)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *priority = s->priority;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
    DRV_ENTER(cuStreamGetFlags, NULL, hStream, flags);
    struct sim_stream *s = drv_stream(hStream);
    if (!s)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!flags)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *flags = s->flags;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    DRV_ENTER(cuCtxGetStreamPriorityRange, NULL, leastPriority, greatestPriority);
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuStreamDestroy_v2(CUstream hStream)
{
    DRV_ENTER(cuStreamDestroy_v2, NULL, hStream);
    struct sim_stream *s = (struct sim_stream *)hStream;
    CUpti_ResourceData rd;
    if (!s || s == (void *)CU_STREAM_LEGACY || s == (void *)CU_STREAM_PER_THREAD ||
        s->magic != CLSIM_MAGIC_STREAM || s->legacy || s->per_thread)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    memset(&rd, 0, sizeof rd);
    rd.context = (CUcontext)s->ctx;
    rd.resourceHandle.stream = hStream;
    clsim_raise(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING, &rd);
    /* pending work still completes; the handle stays allocated but dead */
    pthread_mutex_lock(&clsimdrv_lock);
    s->magic = 0;
    pthread_mutex_unlock(&clsimdrv_lock);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuStreamSynchronize(CUstream hStream)
{
    DRV_ENTER(cuStreamSynchronize, NULL, hStream);
    NEED_CTX();
    struct sim_stream *s = drv_stream(hStream);
    CUpti_SynchronizeData sd;
    if (!s)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    drv_wait_until(s->legacy ? drv_ctx_tail(s->ctx) : s->tail);
    drv_hostfn_wait(s->legacy ? NULL : s);
    sd.context = (CUcontext)s->ctx;
    sd.stream = hStream;
    clsim_raise(CUPTI_CB_DOMAIN_SYNCHRONIZE, CUPTI_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED, &sd);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuStreamQuery(CUstream hStream)
{
    DRV_ENTER(cuStreamQuery, NULL, hStream);
    NEED_CTX();
    struct sim_stream *s = drv_stream(hStream);
    if (!s)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (clsimdrv_query_not_ready())
        DRV_RETURN(CUDA_ERROR_NOT_READY);
    /* "complete" must be true: let the simulated GPU time pass */
    drv_wait_until(s->legacy ? drv_ctx_tail(s->ctx) : s->tail);
    drv_hostfn_wait(s->legacy ? NULL : s);
    DRV_RETURN(CUDA_SUCCESS);
}

static CUresult ctx_sync(struct sim_ctx *c)
{
    CUpti_SynchronizeData sd;
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    drv_wait_until(drv_ctx_tail(c));
    drv_hostfn_wait(NULL);
    sd.context = (CUcontext)c;
    sd.stream = NULL;
    clsim_raise(CUPTI_CB_DOMAIN_SYNCHRONIZE, CUPTI_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED, &sd);
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    DRV_ENTER_P(cuCtxSynchronize, NULL, NULL);
    DRV_RETURN(ctx_sync(drv_ctx()));
}

/* what cudart 13's cudaDeviceSynchronize calls (measured) */
CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    DRV_ENTER(cuCtxSynchronize_v2, NULL, ctx);
    DRV_RETURN(ctx_sync(ctx ? drv_ctx_check(ctx) : drv_ctx()));
}

/* ---- events ----------------------------------------------------------------- */

static struct sim_event *event_check(CUevent h)
{
    struct sim_event *e = (struct sim_event *)h;
    return e && e->magic == CLSIM_MAGIC_EVENT ? e : NULL;
}

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    DRV_ENTER(cuEventCreate, NULL, phEvent, Flags);
    NEED_CTX();
    if (!phEvent)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    struct sim_event *e = calloc(1, sizeof *e);
    e->magic = CLSIM_MAGIC_EVENT;
    e->flags = Flags;
    e->ctx = drv_ctx();
    *phEvent = (CUevent)e;
    DRV_RETURN(CUDA_SUCCESS);
}

static CUresult event_record(CUevent h, CUstream hs)
{
    struct sim_event *e = event_check(h);
    struct sim_stream *s = drv_stream(hs);
    uint64_t st, en;
    if (!e || !s)
        return CUDA_ERROR_INVALID_HANDLE;
    if (s->cap) { /* in a capture: marks the capture's nodes so far */
        drv_capture_record(e, s);
        return CUDA_SUCCESS;
    }
    e->cap = NULL;
    drv_schedule(s, 0, &st, &en);
    e->ts = en;
    e->recorded = 1;
    pthread_mutex_lock(&hf_lock);
    e->hf_stream = s->legacy ? NULL : s;
    e->hf_mark = s->hf_enq;
    pthread_mutex_unlock(&hf_lock);
    return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    DRV_ENTER(cuEventRecord, NULL, hEvent, hStream);
    NEED_CTX();
    DRV_RETURN(event_record(hEvent, hStream));
}

CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    DRV_ENTER(cuEventRecordWithFlags, NULL, hEvent, hStream, flags);
    NEED_CTX();
    DRV_RETURN(event_record(hEvent, hStream));
}

CUresult cuEventSynchronize(CUevent hEvent)
{
    DRV_ENTER(cuEventSynchronize, NULL, hEvent);
    struct sim_event *e = event_check(hEvent);
    if (!e)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (e->recorded)
        drv_wait_until(e->ts);
    if (e->recorded)
        hostfn_wait_event(e);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuEventQuery(CUevent hEvent)
{
    DRV_ENTER(cuEventQuery, NULL, hEvent);
    struct sim_event *e = event_check(hEvent);
    if (!e)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (clsimdrv_query_not_ready())
        DRV_RETURN(CUDA_ERROR_NOT_READY);
    if (e->recorded)
        drv_wait_until(e->ts);
    if (e->recorded)
        hostfn_wait_event(e);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuEventDestroy_v2(CUevent hEvent)
{
    DRV_ENTER(cuEventDestroy_v2, NULL, hEvent);
    struct sim_event *e = event_check(hEvent);
    if (!e)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    e->magic = 0;
    free(e);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    DRV_ENTER(cuEventElapsedTime_v2, NULL, pMilliseconds, hStart, hEnd);
    struct sim_event *a = event_check(hStart), *b = event_check(hEnd);
    if (!pMilliseconds)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!a || !b)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!a->recorded || !b->recorded)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    *pMilliseconds = (float)((double)((int64_t)(b->ts - a->ts)) / 1e6);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    DRV_ENTER(cuStreamWaitEvent, NULL, hStream, hEvent, Flags);
    NEED_CTX();
    struct sim_stream *s = drv_stream(hStream);
    struct sim_event *e = event_check(hEvent);
    if (!s || !e)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (drv_capture_wait(s, e) || s->cap) /* joins the capture */
        DRV_RETURN(CUDA_SUCCESS);
    if (e->recorded) {
        pthread_mutex_lock(&clsimdrv_lock);
        s->tail = max64(s->tail, e->ts);
        pthread_mutex_unlock(&clsimdrv_lock);
    }
    DRV_RETURN(CUDA_SUCCESS);
}

/* ---- host functions: run on a thread of the sim's, like the real driver's --
 * The real driver calls host functions and stream callbacks on a thread of
 * its own once the stream's earlier work has completed ([API]
 * cudaLaunchHostFunc), and work after one waits for it to return.  Here
 * one thread ("clsim-hostfn") runs them in the order they were enqueued,
 * each no earlier than the simulated end of the work before it; stream,
 * event and context synchronization wait for the ones they cover.  The
 * function and data are read from the parameters after the ENTER callback,
 * as the real driver uses what a CUPTI subscriber left there (measured on
 * the GPU, issue 20). */
struct hostfn {
    struct hostfn *next;
    struct sim_stream *s;
    uint64_t due;                    /* simulated end of the work before it */
    CUstream handle;
    CUhostFn fn;                     /* one of the two */
    CUstreamCallback callback;
    void *data;
};
static pthread_mutex_t hf_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hf_cond = PTHREAD_COND_INITIALIZER; /* queued or done */
static struct hostfn *hf_head, **hf_tailp = &hf_head;
static int hf_started;
static uint64_t hf_queued, hf_finished;

static void *hostfn_thread(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "clsim-hostfn");
    for (;;) {
        pthread_mutex_lock(&hf_lock);
        while (!hf_head)
            pthread_cond_wait(&hf_cond, &hf_lock);
        struct hostfn *h = hf_head;   /* stays queued while it runs */
        pthread_mutex_unlock(&hf_lock);
        drv_wait_until(h->due);
        if (h->fn)
            h->fn(h->data);
        else
            h->callback(h->handle, CUDA_SUCCESS, h->data);
        pthread_mutex_lock(&hf_lock);
        hf_head = h->next;
        if (!hf_head)
            hf_tailp = &hf_head;
        h->s->hf_done++;
        hf_finished++;
        pthread_cond_broadcast(&hf_cond);
        pthread_mutex_unlock(&hf_lock);
        free(h);
    }
    return NULL;
}

static void hostfn_child(void)
{
    /* the thread is not the child's: start afresh (the queue is lost, as a
     * fork loses the parent's GPU work) */
    pthread_mutex_init(&hf_lock, NULL);
    pthread_cond_init(&hf_cond, NULL);
    hf_head = NULL;
    hf_tailp = &hf_head;
    hf_started = 0;
    hf_queued = hf_finished = 0;
}

static CUresult hostfn_enqueue(struct sim_stream *s, CUstream handle, CUhostFn fn,
                               CUstreamCallback callback, void *data)
{
    uint64_t st, en;
    struct hostfn *h = calloc(1, sizeof *h);
    if (!h)
        return CUDA_ERROR_OUT_OF_MEMORY;
    drv_schedule(s, 0, &st, &en);
    *h = (struct hostfn){NULL, s, en, handle, fn, callback, data};
    pthread_mutex_lock(&hf_lock);
    if (!hf_started) {
        pthread_t t;
        static int atfork;
        if (!atfork++)
            pthread_atfork(NULL, NULL, hostfn_child);
        if (pthread_create(&t, NULL, hostfn_thread, NULL)) {
            pthread_mutex_unlock(&hf_lock);
            free(h);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        pthread_detach(t);
        hf_started = 1;
    }
    *hf_tailp = h;
    hf_tailp = &h->next;
    s->hf_enq++;
    hf_queued++;
    pthread_cond_broadcast(&hf_cond);
    pthread_mutex_unlock(&hf_lock);
    return CUDA_SUCCESS;
}

void drv_hostfn_wait(struct sim_stream *s)
{
    pthread_mutex_lock(&hf_lock);
    uint64_t mark = s ? s->hf_enq : hf_queued;
    while (s ? s->hf_done < mark : hf_finished < mark)
        pthread_cond_wait(&hf_cond, &hf_lock);
    pthread_mutex_unlock(&hf_lock);
}

/* an event: wait for the host functions enqueued before its record */
static void hostfn_wait_event(struct sim_event *e)
{
    if (!e->hf_stream)
        return;
    pthread_mutex_lock(&hf_lock);
    while (e->hf_stream->hf_done < e->hf_mark)
        pthread_cond_wait(&hf_cond, &hf_lock);
    pthread_mutex_unlock(&hf_lock);
}

CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    DRV_ENTER(cuLaunchHostFunc, NULL, hStream, fn, userData);
    NEED_CTX();
    struct sim_stream *s = drv_stream(hStream);
    if (!s)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!drv_p_.fn)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (s->cap) {
        struct sim_gnode *n = drv_capture_node(s, CU_GRAPH_NODE_TYPE_HOST);
        n->fn = drv_p_.fn;
        n->ud = drv_p_.userData;
        DRV_RETURN(CUDA_SUCCESS);
    }
    DRV_RETURN(hostfn_enqueue(s, hStream, drv_p_.fn, NULL, drv_p_.userData));
}

CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
                             unsigned int flags)
{
    DRV_ENTER(cuStreamAddCallback, NULL, hStream, callback, userData, flags);
    NEED_CTX();
    struct sim_stream *s = drv_stream(hStream);
    if (!s)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (!drv_p_.callback || flags)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    DRV_RETURN(hostfn_enqueue(s, hStream, NULL, drv_p_.callback, drv_p_.userData));
}

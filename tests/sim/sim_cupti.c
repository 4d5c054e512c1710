/* sim_cupti.c - TEST DOUBLE for CI: the callback half of the simulated
 * libcupti.so.13 (subscribe, enable, raise callbacks, correlation ids,
 * timestamps, ids of contexts/devices/streams, error strings).
 *
 * Like CUPTI 13.0 with driver 580 it allows one subscriber per process;
 * CUDALENS_SIM_CUPTI_BUSY=1 makes every cuptiSubscribe fail as if nsys or
 * torch.profiler already held CUPTI.  As real CUPTI does, API calls that a
 * subscriber makes from inside one of its callbacks raise callbacks too, and
 * nested calls share the outermost call's correlation id.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim_internal.h"

struct subscriber { int magic; CUpti_CallbackFunc fn; void *userdata; };

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct subscriber *g_sub;        /* the one subscriber, or NULL */
static CUpti_CallbackFunc g_fn;         /* copies read without the lock */
static void *g_userdata;
static uint8_t g_rt_on[CUPTI_RUNTIME_TRACE_CBID_SIZE];
static uint8_t g_drv_on[CUPTI_DRIVER_TRACE_CBID_SIZE];
static uint8_t g_res_on[CUPTI_CBID_RESOURCE_SIZE];
static uint8_t g_sync_on[CUPTI_CBID_SYNCHRONIZE_SIZE];
static uint32_t g_next_corr = 1;

static __thread int t_depth;            /* API calls in flight on this thread */
static __thread uint32_t t_outer_corr;  /* correlation id of the outermost */
static __thread CUptiResult t_last_error;

static CUptiResult ret(CUptiResult r)
{
    if (r != CUPTI_SUCCESS)
        t_last_error = r;
    return r;
}

static uint8_t *flags_of(CUpti_CallbackDomain d, size_t *n)
{
    switch (d) {
    case CUPTI_CB_DOMAIN_RUNTIME_API: *n = sizeof g_rt_on; return g_rt_on;
    case CUPTI_CB_DOMAIN_DRIVER_API: *n = sizeof g_drv_on; return g_drv_on;
    case CUPTI_CB_DOMAIN_RESOURCE: *n = sizeof g_res_on; return g_res_on;
    case CUPTI_CB_DOMAIN_SYNCHRONIZE: *n = sizeof g_sync_on; return g_sync_on;
    default: *n = 0; return NULL;
    }
}

uint64_t clsim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int enabled(CUpti_CallbackDomain d, CUpti_CallbackId cbid)
{
    size_t n;
    uint8_t *f = flags_of(d, &n);
    return g_fn && f && cbid < n && __atomic_load_n(&f[cbid], __ATOMIC_RELAXED);
}

/* Real CUPTI raises callbacks for API calls a subscriber makes from inside
 * its callback too (measured): the subscriber must guard against recursion. */
static void invoke(CUpti_CallbackDomain d, CUpti_CallbackId cbid, const void *data)
{
    CUpti_CallbackFunc fn = g_fn;
    if (fn)
        fn(g_userdata, d, cbid, data);
}

void clsim_api_enter(struct clsim_api *a, CUpti_CallbackDomain domain,
                     CUpti_CallbackId cbid, const char *name, const void *params,
                     void *retval, const char *symbol, CUcontext ctx, uint32_t ctxuid)
{
    memset(a, 0, sizeof *a);
    a->domain = domain;
    a->cbid = cbid;
    a->cb.callbackSite = CUPTI_API_ENTER;
    a->cb.functionName = name;
    a->cb.functionParams = params;
    a->cb.functionReturnValue = retval;
    a->cb.symbolName = symbol;
    a->cb.context = ctx;
    a->cb.contextUid = ctxuid;
    a->cb.correlationData = &a->corrdata;
    /* as measured on CUDA 13 / driver 580: calls nested in an API call (the
     * driver calls of a runtime call, and calls a subscriber makes from its
     * callback) carry the outermost call's correlation id */
    a->outermost = t_depth++ == 0;
    if (a->outermost)
        t_outer_corr = __atomic_fetch_add(&g_next_corr, 1, __ATOMIC_RELAXED);
    a->cb.correlationId = t_outer_corr;
    if (enabled(domain, cbid))
        invoke(domain, cbid, &a->cb);
}

void clsim_api_exit(struct clsim_api *a)
{
    a->cb.callbackSite = CUPTI_API_EXIT;
    if (enabled(a->domain, a->cbid))
        invoke(a->domain, a->cbid, &a->cb);
    if (--t_depth == 0)
        t_outer_corr = 0;
}

void clsim_raise(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    if (enabled(domain, cbid))
        invoke(domain, cbid, data);
}

uint32_t clsim_work_correlation(void)
{
    return t_outer_corr;
}

/* ---- the CUPTI callback API ---------------------------------------------- */

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                           void *userdata)
{
    const char *busy = getenv("CUDALENS_SIM_CUPTI_BUSY");
    if (!subscriber)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    if (busy && *busy && strcmp(busy, "0") != 0)
        return ret(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    pthread_mutex_lock(&g_lock);
    if (g_sub) {
        pthread_mutex_unlock(&g_lock);
        return ret(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    }
    g_sub = calloc(1, sizeof *g_sub);
    g_sub->magic = 0x53554253;
    g_sub->fn = callback;
    g_sub->userdata = userdata;
    g_userdata = userdata;
    __atomic_store_n(&g_fn, callback, __ATOMIC_RELEASE);
    *subscriber = (CUpti_SubscriberHandle)g_sub;
    pthread_mutex_unlock(&g_lock);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                              void *userdata, CUpti_SubscriberParams *params)
{
    if (params && params->structSize == 0)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    return cuptiSubscribe(subscriber, callback, userdata);
}

static void clear_all(void)
{
    memset(g_rt_on, 0, sizeof g_rt_on);
    memset(g_drv_on, 0, sizeof g_drv_on);
    memset(g_res_on, 0, sizeof g_res_on);
    memset(g_sync_on, 0, sizeof g_sync_on);
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
    pthread_mutex_lock(&g_lock);
    if (!subscriber || (struct subscriber *)subscriber != g_sub) {
        pthread_mutex_unlock(&g_lock);
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    }
    __atomic_store_n(&g_fn, NULL, __ATOMIC_RELEASE);
    clear_all();
    free(g_sub);
    g_sub = NULL;
    pthread_mutex_unlock(&g_lock);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    size_t n;
    uint8_t *f = flags_of(domain, &n);
    if (!subscriber || (struct subscriber *)subscriber != g_sub)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    if (!f || cbid >= n)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    __atomic_store_n(&f[cbid], enable ? 1 : 0, __ATOMIC_RELAXED);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                              CUpti_CallbackDomain domain)
{
    size_t n;
    uint8_t *f = flags_of(domain, &n);
    if (!subscriber || (struct subscriber *)subscriber != g_sub || !f)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    for (size_t i = 1; i < n; i++)
        __atomic_store_n(&f[i], enable ? 1 : 0, __ATOMIC_RELAXED);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber)
{
    CUpti_CallbackDomain d[] = { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API,
                                 CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CB_DOMAIN_SYNCHRONIZE };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        CUptiResult r = cuptiEnableDomain(enable, subscriber, d[i]);
        if (r != CUPTI_SUCCESS)
            return r;
    }
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetCallbackState(uint32_t *enable, CUpti_SubscriberHandle subscriber,
                                  CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    size_t n;
    uint8_t *f = flags_of(domain, &n);
    if (!enable || !subscriber || (struct subscriber *)subscriber != g_sub || !f || cbid >= n)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    *enable = f[cbid];
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t *timestamp)
{
    if (!timestamp)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    *timestamp = clsim_now();
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetVersion(uint32_t *version)
{
    if (!version)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    *version = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetLastError(void)
{
    CUptiResult r = t_last_error;
    t_last_error = CUPTI_SUCCESS;
    return r;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char **str)
{
    static const struct { CUptiResult r; const char *s; } names[] = {
#define N(x) { x, #x }
        N(CUPTI_SUCCESS), N(CUPTI_ERROR_INVALID_PARAMETER), N(CUPTI_ERROR_INVALID_DEVICE),
        N(CUPTI_ERROR_INVALID_CONTEXT), N(CUPTI_ERROR_INVALID_EVENT_DOMAIN_ID),
        N(CUPTI_ERROR_INVALID_OPERATION), N(CUPTI_ERROR_OUT_OF_MEMORY),
        N(CUPTI_ERROR_NOT_INITIALIZED), N(CUPTI_ERROR_MAX_LIMIT_REACHED),
        N(CUPTI_ERROR_NOT_READY), N(CUPTI_ERROR_NOT_COMPATIBLE), N(CUPTI_ERROR_INVALID_KIND),
        N(CUPTI_ERROR_NOT_SUPPORTED), N(CUPTI_ERROR_QUEUE_EMPTY),
        N(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), N(CUPTI_ERROR_UNKNOWN),
#undef N
    };
    if (!str)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].r == result) {
            *str = names[i].s;
            return CUPTI_SUCCESS;
        }
    *str = "CUPTI_ERROR_UNKNOWN";
    return ret(CUPTI_ERROR_INVALID_PARAMETER);
}

/* Ids live in the sim driver's handles.  libcupti must load without
 * libcuda (a preloaded tool may load it into any process), so the driver's
 * helpers are looked up when needed. */
static void *drv_sym(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

CUptiResult cuptiGetContextId(CUcontext context, uint32_t *contextId)
{
    uint32_t (*uid)(CUcontext) = (uint32_t (*)(CUcontext))drv_sym("clsimdrv_ctx_uid");
    uint32_t id;
    if (!contextId || !context || !uid)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    if (!(id = uid(context)))
        return ret(CUPTI_ERROR_INVALID_CONTEXT);
    *contextId = id;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetDeviceId(CUcontext context, uint32_t *deviceId)
{
    int (*dev)(CUcontext) = (int (*)(CUcontext))drv_sym("clsimdrv_ctx_device");
    int d;
    if (!deviceId)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    if (!dev)
        return ret(CUPTI_ERROR_NOT_INITIALIZED);
    if ((d = dev(context)) < 0)
        return ret(CUPTI_ERROR_INVALID_CONTEXT);
    *deviceId = (uint32_t)d;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t perThreadStream,
                               uint32_t *streamId)
{
    uint32_t (*sid)(CUcontext, CUstream, int) =
        (uint32_t (*)(CUcontext, CUstream, int))drv_sym("clsimdrv_stream_id");
    uint32_t id;
    if (!streamId || !sid)
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    if (!(id = sid(context, stream, perThreadStream)))
        return ret(CUPTI_ERROR_INVALID_PARAMETER);
    *streamId = id;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetStreamId(CUcontext context, CUstream stream, uint32_t *streamId)
{
    return cuptiGetStreamIdEx(context, stream, 0, streamId);
}

void clsim_activity_reset(void);

CUptiResult cuptiFinalize(void)
{
    clsim_activity_flush();
    clsim_activity_reset();
    pthread_mutex_lock(&g_lock);
    __atomic_store_n(&g_fn, NULL, __ATOMIC_RELEASE);
    clear_all();
    free(g_sub);
    g_sub = NULL;
    pthread_mutex_unlock(&g_lock);
    return CUPTI_SUCCESS;
}

/* capture.c - turns CUPTI callbacks into records.  Runtime and driver API
 * calls listed in api.def become one call record each, written at the call's
 * exit with its result; a driver call made inside a runtime call is folded
 * into that runtime call (it contributes its correlation id and the kernel's
 * parameters) so that each operation is recorded once.  Resource callbacks
 * describe contexts and devices. */
#include <string.h>

#include "ablate.h"
#include "capture.h"
#include "cudalens/mangle_const.h"
#include "cudalens/semantics.h"
#include "cupti.h"
#include "cupti_activity.h"
#include "devices.h"
#include "graphs.h"
#include "hostfn.h"
#include "hostguard.h"
#include "kparams.h"
#include "memquery.h"
#include "nccl.h"
#include "pyframes.h"
#include "ring.h"
#include "selftime.h"
#include "stack.h"
#include "threadmem.h"
#include "threads.h"

static CUpti_SubscriberHandle subscriber;
static _Atomic int subscribed;
/* benchmark phases (cl_capture_bench_phase): callbacks return at once while
 * set; a thread's calls under way are forgotten when the generation moves */
static _Atomic int bench_floor;
static _Atomic unsigned bench_gen;

/* An API call between its entry and exit callbacks. */
struct pending {
  int api;                /* table index, -1 when not ours */
  uint64_t freed_copy;    /* a free of memory an in-flight copy uses */
  uint64_t freed_addr;
  int runtime;            /* runtime domain (1) or top-level driver call (0) */
  uint64_t start_ns;
  uint32_t correlation, driver_correlation;
  uint32_t pystack;       /* interned Python stack, 0 when none */
  uint8_t nframes;
  uint8_t hostfn_tried;   /* a host function's driver call was seen */
  void *hostfn_slot;      /* ... and its trampoline put in, */
  const void *hostfn_params; /* into these parameters */
  struct cl_kscan ks;     /* a launch's argument words (kparams.h), in the
                           * thread's kargs after those of the calls it is
                           * inside */
  uint64_t frames[CL_MAX_FRAMES];
};

#define MAX_NEST 4
/* A thread's calls under way, allocated on its first callback (threadmem.c)
 * rather than in static thread-local storage, which the C library clears
 * for every thread of every process the shim is preloaded into, CUDA or not
 * (3 KB, and 17 KB of launch argument words; issue 24, item 10).  A
 * thread that cannot have it (no memory) records nothing. */
struct thread_state {
  int busy;               /* inside our own handler: ignore CUDA calls we make */
  int depth;              /* open recorded calls (may exceed MAX_NEST) */
  int runtime_depth;      /* open runtime calls */
  unsigned bench_gen;     /* bench_gen when depth was last right */
  struct pending p[MAX_NEST];
  CUcontext last_ctx;
  int32_t last_dev;
  struct cl_record scratch; /* a call's record that the ring cannot keep */
  /* the argument words of the launches under way, the outermost first
   * (last: most launches fill the first line or two) */
  struct cl_karg kargs[CL_LAUNCH_KARGS];
};
static __thread struct thread_state *T; /* set in on_callback */
/* (on_callback reads T once and hands it down as TS: each read of a
 * __thread variable of a shared library is a call, repeated after every
 * call that T's address could reach) */

uint64_t cl_start_ns, cl_end_ns;

uint64_t cl_now_ns(void)
{
  uint64_t t = 0;
  cl_cupti.cuptiGetTimestamp(&t);
  return t;
}

static int32_t device_of(struct thread_state *ts, CUcontext ctx)
{
  if (!ctx)
    return -1;
  if (ctx == ts->last_ctx)
    return ts->last_dev;
  uint32_t dev;
  int32_t d = cl_cupti.cuptiGetDeviceId(ctx, &dev) == CUPTI_SUCCESS ? (int32_t)dev : -1;
  ts->last_ctx = ctx;
  ts->last_dev = d;
  return d;
}

static void scan_launch(const CUpti_CallbackData *cb, enum cl_op op,
                        CUpti_CallbackId cbid, struct pending *p)
{
  if ((op != CL_OP_KERNEL && op != CL_OP_GRAPH_EXEC_NODE) || p->ks.n)
    return;
  void *f = NULL;
  void **params = NULL, **extra = NULL;
  switch (cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
    const cuLaunchKernel_params *P = cb->functionParams;
    f = P->f, params = P->kernelParams, extra = P->extra;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    const cuLaunchKernelEx_params *P = cb->functionParams;
    f = P->f, params = P->kernelParams, extra = P->extra;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
    const cuLaunchCooperativeKernel_params *P = cb->functionParams;
    f = P->f, params = P->kernelParams;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2: {
    /* a graph's kernel node takes new parameters (graphs.c) */
    const cuGraphExecKernelNodeSetParams_v2_params *P = cb->functionParams;
    if (!P->nodeParams || P->nodeParams->extra)
      return; /* as graphs.c reads a node: extra not followed */
    f = P->nodeParams->func ? (void *)P->nodeParams->func
                            : (void *)P->nodeParams->kern;
    params = P->nodeParams->kernelParams;
    break;
  }
  default:
    return;
  }
  if (CL_ABLATED(CL_ABLATE_SCAN))
    return;
  CL_PHASE_BEGIN(t0);
  /* a launch's words may wait for the writer; a graph's kernel node's are
   * needed at the call's end (cl_graph_exec_kernel) */
  const void *buf;
  size_t bytes;
  if (params) /* (both given: the launch fails, CUDA_ERROR_INVALID_VALUE) */
    cl_kparams_scan(f, params, &p->ks, op == CL_OP_KERNEL);
  else if (!cl_nccl_inside() && cl_kparams_extra(extra, &buf, &bytes))
    /* NCCL launches its own kernels this way: their buffer holds its
     * communicator's device state and work queues, and the collective's
     * record is what models the memory they touch (nccl.c) */
    cl_kparams_scan_buffer(f, buf, bytes, &p->ks, op == CL_OP_KERNEL);
  CL_PHASE_END(CL_PH_KPARAMS, t0);
}

/* ---- the host-access check (hostguard.c) sees copies and syncs ---------- */
static void guard_free(const struct cl_api *api, const void *params,
                       struct pending *p)
{
  struct cl_args a;
  memset(&a, 0, sizeof a);
  /* a free's pointer is an input: valid at entry */
  cl_api_decode(api, params, &a);
  if (cl_allocmap_kind(a.dst, 1) == CL_MEMKIND_MANAGED) {
    /* cudaFree of managed memory: its guards go before the pages do (not
     * reported: cudaFree waits for the device in practice) */
    cl_hostguard_free(a.dst);
    return;
  }
  if (a.memkind != CL_MEMKIND_PINNED && a.memkind != CL_MEMKIND_REGISTERED)
    return;
  p->freed_addr = a.dst;
  p->freed_copy = cl_hostguard_free(a.dst);
}

/* A host function: the trampoline (hostfn.c) records its run and lifts
 * the guards it covers when it runs; it is put in at the driver call's
 * ENTER (at the runtime's it has no effect), whose parameters API and
 * PARAMS are, for the recorded call P (the runtime call around it, or the
 * driver call itself).  Without a trampoline (no slot left), what came
 * before it is released now: it may run as soon as the stream's earlier
 * work is done, and then hand the memory to any thread. */
static void wrap_host_func(const struct cl_api *api, const void *params,
                           struct pending *p)
{
  struct cl_args a;
  memset(&a, 0, sizeof a);
  cl_api_decode(api, params, &a);
  uint64_t stream = cl_stream_of(api, a.stream);
  p->hostfn_tried = 1;
  p->hostfn_slot = cl_hostfn_wrap(api, params, p->correlation, stream,
                                  cl_gettid(), cl_hostguard_capturing());
  p->hostfn_params = params;
  if (!p->hostfn_slot)
    cl_hostguard_sync(CL_OP_HOST_FUNC, -1, stream, cl_gettid(), 0,
                      UINT64_MAX);
}

/* a driver call of P's returned (CB): if it is the host function's and
 * failed, the function will not run */
static void host_func_returned(struct pending *p, const CUpti_CallbackData *cb)
{
  if (!p->hostfn_slot || cb->functionParams != p->hostfn_params)
    return;
  if (cb->functionReturnValue && *(const int *)cb->functionReturnValue != 0)
    cl_hostfn_failed(p->hostfn_slot);
  p->hostfn_slot = NULL;
}

/* Pointer parameters of a kernel declared as pointers to const (bit i for
 * parameter i), read from its mangled name once per kernel and thread (the
 * cache allocated on the thread's first launch: threadmem.c).  Name ids
 * are handed out 1, 2, 3, ... (strings.c), so slot id % CONST_CACHE holds
 * the first CONST_CACHE names without a collision (parsing a PyTorch
 * kernel's mangled name takes 0.1-0.4 us; with 64 slots the H100 parsed
 * 9-38 names per 1,000 launches of resnet18, a transformer and GPT-2,
 * with 1,024 under 1: bench/README.md, session 10). */
#define CONST_CACHE 1024
struct const_entry {
  uint32_t id;
  uint64_t mask;
};
static __thread struct const_entry *const_cache; /* [CONST_CACHE], or NULL */

static uint64_t const_params(uint32_t name_id, const char *name)
{
  struct const_entry *cache = cl_thread_calloc(
      (void **)&const_cache, CONST_CACHE * sizeof *const_cache);
  unsigned k = name_id % CONST_CACHE;
  if (cache && name_id && cache[k].id == name_id)
    return cache[k].mask;
  CL_PHASE_ADD(CL_PH_GUARD_PARSE, 1);
  enum param_class cls[64];
  uint64_t mask = 0;
  int n = name ? mangle_param_classes(name, cls, 64) : -1;
  for (int i = 0; i < n && i < 64; i++)
    if (cls[i] == PARAM_PTR_CONST)
      mask |= 1ull << i;
  if (cache)
    cache[k].id = name_id, cache[k].mask = mask;
  return mask;
}

/* What the allocation map says of a copy's destination (0) and source (1):
 * cl_allocmap_kind with the copy's bytes, and cl_allocmap_device; read once
 * for both (copy_devices and guard_after each asked, a lookup a question) */
struct copy_sides {
  int kind[2];      /* -1 until read */
  int32_t device[2];
};
#define COPY_SIDES_UNREAD {{-1, -1}, {-1, -1}}

static void side_read(struct copy_sides *s, const struct cl_args *a, int i)
{
  if (s->kind[i] < 0)
    s->kind[i] = cl_allocmap_kind_device(i ? a->src : a->dst, a->bytes,
                                         &s->device[i]);
}

/* The host side's memory kind of a blocking copy (pageable when unknown),
 * for its rule in ops.def (SIDES: a copy's, NULL for a memset). */
static int sync_host_kind(const struct cl_args *a, int memset,
                          struct copy_sides *sides)
{
  uint64_t host = memset || a->dir == CL_DIR_DTOH ? a->dst : a->src;
  int kind;
  if (sides && a->bytes) {
    int i = host == a->dst ? 0 : 1;
    side_read(sides, a, i);
    kind = sides->kind[i];
  } else {
    kind = cl_allocmap_kind(host, a->bytes ? a->bytes : 1);
  }
  return kind == CL_MEMKIND_UNKNOWN ? CL_MEMKIND_PAGEABLE : kind;
}

static int named(const struct cl_api *api, const char *rt, const char *drv)
{
  return !strncmp(cl_api_name(api), rt, strlen(rt)) ||
         !strncmp(cl_api_name(api), drv, strlen(drv));
}

/* the device whose memory a successful allocation is (as the memory row
 * records it), -1 for host memory */
static int32_t memory_device(const struct cl_args *a, int32_t current)
{
  switch (a->memkind) {
  case CL_MEMKIND_DEVICE: case CL_MEMKIND_DEVICE_ASYNC:
  case CL_MEMKIND_MAPPED: case CL_MEMKIND_ARRAY:
    return a->has_device ? a->device : current;
  default:
    return -1;
  }
}

/* The devices of a copy that names none (cudaMemcpy*, cuMemcpy*, and
 * cuMemcpyPeer*, which names contexts): with unified addressing a copy
 * between two devices' memory is a peer copy whatever its kind says
 * (CUDA Runtime API, cudaMemcpy: "cudaMemcpyDefault ... the type of
 * transfer is inferred from the pointer values"), so its source and
 * destination devices are those of its memory; host memory's side is the
 * calling device's */
static void copy_devices(struct cl_args *a, int32_t current,
                         struct copy_sides *sides)
{
  int32_t src = -1, dst = -1;
  if (a->src) {
    side_read(sides, a, 1);
    src = sides->device[1];
  }
  if (a->dst) {
    side_read(sides, a, 0);
    dst = sides->device[0];
  }
  if (src < 0 && dst < 0)
    return;
  a->peer = src >= 0 ? src : current;
  a->device = dst >= 0 ? dst : current;
  a->has_device = 1;
}

static void guard_after(const struct cl_api *api, const struct cl_call *c,
                        const struct cl_kscan *ks, const char *symbol,
                        struct copy_sides *sides)
{
  const struct cl_args *a = &c->a;
  uint64_t stream = cl_stream_of(api, a->stream);
  int async = (api->flags & CL_ASYNC) != 0;
  switch (api->op) {
  case CL_OP_COPY:
    if (!async) {
      /* a blocking copy synchronizes its stream only where ops.def says
       * the host knows it finished (cl_host_after: not device-to-device,
       * not peer, which is asynchronous with respect to the host) */
      if (cl_host_after(CL_OP_COPY, cl_copy_rule(0, 0, a->dir,
                                                 sync_host_kind(a, 0, sides))) ==
          CL_HOST_STREAM)
        cl_hostguard_sync(CL_OP_COPY, c->device, stream, c->tid, 0, c->seq);
    } else if (a->dir == CL_DIR_DTOH ||
               (a->dir == CL_DIR_DEFAULT &&
                (side_read(sides, a, 0), sides->kind[0]) != CL_MEMKIND_DEVICE)) {
      cl_hostguard_copy_kind(c->seq, stream, c->tid, c->device, 1, a->dst,
                             a->bytes, sides->kind[0]);
    } else if (a->dir == CL_DIR_HTOD || a->dir == CL_DIR_DEFAULT) {
      cl_hostguard_copy_kind(c->seq, stream, c->tid, c->device, 0, a->src,
                             a->bytes, sides->kind[1]);
    } else if (a->dir == CL_DIR_DTOD || a->dir == CL_DIR_PEER) {
      /* managed or pinned memory on either side (device memory is not
       * guarded) */
      cl_hostguard_copy_kind(c->seq, stream, c->tid, c->device, 1, a->dst,
                             a->bytes, sides->kind[0]);
      cl_hostguard_copy_kind(c->seq, stream, c->tid, c->device, 0, a->src,
                             a->bytes, sides->kind[1]);
    }
    break;
  case CL_OP_MEMSET:
    if (async) /* the device writes the target: pinned or managed memory */
      cl_hostguard_copy(c->seq, stream, c->tid, c->device, 1, a->dst, a->bytes);
    else if (cl_host_after(CL_OP_MEMSET,
                           cl_copy_rule(1, 0, CL_DIR_UNKNOWN,
                                        sync_host_kind(a, 1, NULL))) ==
             CL_HOST_STREAM)
      cl_hostguard_sync(CL_OP_COPY, c->device, stream, c->tid, 0, c->seq);
    break;
  case CL_OP_KERNEL:
    /* (words left for the writer reach nothing the host does: kparams.c) */
    if (ks->n && !ks->deferred)
      cl_hostguard_kernel(c->seq, stream, c->tid, c->device, ks->kargs,
                          ks->n, const_params(c->name, symbol));
    break;
  case CL_OP_CAPTURE_BEGIN: case CL_OP_CAPTURE_END:
    cl_hostguard_capture(api->op == CL_OP_CAPTURE_BEGIN);
    break;
  case CL_OP_GRAPH_LAUNCH: /* its nodes, as the same work on the stream */
    if (!cl_graph_capturing(stream))
      cl_graph_launched(a->handle, c->seq, stream, c->tid, c->device);
    break;
  case CL_OP_STREAM_CREATE: case CL_OP_STREAM_DESTROY:
    /* cudaStreamNonBlocking == CU_STREAM_NON_BLOCKING == 1 */
    cl_hostguard_stream(a->stream, api->op == CL_OP_STREAM_CREATE,
                        (a->flags & 1) != 0);
    break;
  case CL_OP_EVENT_RECORD: /* what a later event synchronization covers */
  case CL_OP_STREAM_WAIT_EVENT: /* ... and a later wait for the stream */
    cl_hostguard_sync(api->op, c->device, stream, c->tid, a->event, c->seq);
    break;
  case CL_OP_OTHER:
    if (named(api, "cudaStreamAttachMemAsync", "cuStreamAttachMemAsync"))
      cl_allocmap_attach(a->dst, a->flags);
    else if (named(api, "cudaHostGetDevicePointer", "cuMemHostGetDevicePointer"))
      cl_allocmap_alias(a->dst, a->src);
    else if (named(api, "cudaGraphExecDestroy", "cuGraphExecDestroy"))
      cl_graph_exec_destroyed(a->handle);
    break;
  default:
    /* a synchronization: what it covers is the ordering table's (ops.def,
     * read by cl_hostguard_sync); the call succeeded, as a query must */
    if (cl_op_sem(api->op)->host != CL_HOST_NONE)
      cl_hostguard_sync(api->op, c->device, stream, c->tid, a->event, c->seq);
    break;
  }
}

/* work that stream capture turns into a graph node (cudaEventRecord and
 * cudaStreamWaitEvent only change the capture's dependencies) */
static int adds_node(const struct cl_api *api)
{
  switch (api->op) {
  case CL_OP_KERNEL: case CL_OP_COPY: case CL_OP_MEMSET: case CL_OP_HOST_FUNC:
    return 1;
  case CL_OP_ALLOC: case CL_OP_FREE: /* graph memory nodes */
    return (api->flags & CL_ASYNC) != 0;
  default:
    return 0;
  }
}

static void api_enter(struct thread_state *ts, int runtime,
                      CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
  int idx = cl_api_lookup(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API
                                  : CUPTI_CB_DOMAIN_DRIVER_API, cbid);
  if (!runtime && ts->runtime_depth > 0) {
    /* a driver call inside a runtime call belongs to that call */
    if (ts->depth > 0 && ts->depth <= MAX_NEST && idx >= 0) {
      struct pending *p = &ts->p[ts->depth - 1];
      if (!p->driver_correlation)
        p->driver_correlation = cb->correlationId;
      scan_launch(cb, cl_api_table[idx].op, cbid, p);
      if (cl_api_table[idx].op == CL_OP_HOST_FUNC)
        wrap_host_func(&cl_api_table[idx], cb->functionParams, p);
    }
    return;
  }
  int d = ts->depth++;
  if (runtime)
    ts->runtime_depth++;
  if (d >= MAX_NEST)
    return;
  struct pending *p = &ts->p[d];
  p->api = idx;
  p->runtime = runtime;
  p->correlation = cb->correlationId;
  p->driver_correlation = 0;
  p->ks.kargs = d ? p[-1].ks.kargs + p[-1].ks.n : ts->kargs;
  p->ks.cap = (uint16_t)(ts->kargs + CL_LAUNCH_KARGS - p->ks.kargs);
  p->ks.n = p->ks.truncated = p->ks.deferred = 0;
  /* nested calls share the outermost call's Python stack; the native walk
   * stops where it starts (stack.h) */
  CL_PHASE_BEGIN(t1);
  p->pystack = d == 0 ? cl_pystack_capture() : ts->p[0].pystack;
  CL_PHASE_END(CL_PH_PYSTACK, t1);
  CL_PHASE_BEGIN(t0);
  p->nframes = (uint8_t)cl_stack_capture(
      p->frames, cl_cfg.stack_depth | (p->pystack ? CL_STACK_TO_PYTHON : 0));
  CL_PHASE_END(CL_PH_STACK, t0);
  p->freed_copy = 0;
  p->hostfn_tried = 0;
  p->hostfn_slot = NULL;
  if (idx >= 0 && cl_api_table[idx].op == CL_OP_FREE)
    guard_free(&cl_api_table[idx], cb->functionParams, p);
  if (!runtime && idx >= 0 && cl_api_table[idx].op == CL_OP_HOST_FUNC)
    wrap_host_func(&cl_api_table[idx], cb->functionParams, p);
  if (!runtime && idx >= 0)
    scan_launch(cb, cl_api_table[idx].op, cbid, p);
  p->start_ns = cl_now_ns();
}

/* the exit of a driver call folded into the enclosing runtime call (apart
 * from api_exit, which saves and restores six registers on every call) */
static inline void folded_exit(struct thread_state *ts,
                               const CUpti_CallbackData *cb)
{
  if (ts->depth > 0 && ts->depth <= MAX_NEST && ts->p[ts->depth - 1].hostfn_slot)
    host_func_returned(&ts->p[ts->depth - 1], cb);
}

static void api_exit(struct thread_state *ts, int runtime,
                     const CUpti_CallbackData *cb)
{
  if (ts->depth == 0)
    return; /* subscribed while this call was in flight */
  int d = --ts->depth;
  if (runtime && ts->runtime_depth > 0)
    ts->runtime_depth--;
  if (d >= MAX_NEST)
    return;
  struct pending *p = &ts->p[d];
  if (p->api < 0) {
    if (p->ks.deferred) /* (a launch inside a call not recorded) */
      cl_ring_release();
    return;
  }
  /* (read only for the calls recorded: not for a driver call folded into
   * its runtime call) */
  uint64_t end_ns = cl_now_ns();
  const struct cl_api *api = &cl_api_table[p->api];
  if (!runtime) {
    host_func_returned(p, cb);
  } else if (api->op == CL_OP_HOST_FUNC && !p->hostfn_tried) {
    /* no driver call was seen inside: what came before goes now */
    struct cl_args a;
    memset(&a, 0, sizeof a);
    cl_api_decode(api, cb->functionParams, &a);
    cl_hostguard_sync(CL_OP_HOST_FUNC, -1, cl_stream_of(api, a.stream),
                      cl_gettid(), 0, UINT64_MAX);
  }
  /* a record that cannot be kept (counted as dropped) is still decoded: the
   * allocation map and the host-access check must follow every call */
  CL_PHASE_BEGIN(t0);
  cl_threads_before_record();
  struct cl_record *r = cl_ring_reserve(CL_REC_CALL);
  int keep = r != NULL;
  if (!keep)
    r = &ts->scratch;
  r->type = CL_REC_CALL;
  struct cl_call *c = &r->u.call;
  c->seq = cl_next_seq();
  c->start_ns = p->start_ns;
  c->end_ns = end_ns;
  c->api = (uint32_t)p->api;
  c->result = cb->functionReturnValue ? *(const int *)cb->functionReturnValue : 0;
  c->device = device_of(ts, cb->context);
  c->context = cb->contextUid;
  c->correlation = p->correlation;
  c->driver_correlation = p->driver_correlation;
  CL_PHASE_BEGIN(t1);
  c->name = api->op == CL_OP_KERNEL ? cl_intern(cb->symbolName) : 0;
  CL_PHASE_END(CL_PH_INTERN, t1);
  c->tid = cl_gettid();
  c->pystack = p->pystack;
  c->nframes = p->nframes;
  memcpy(c->frames, p->frames, p->nframes * sizeof *c->frames);
  unsigned kept = p->ks.n < CL_MAX_KARGS ? p->ks.n : CL_MAX_KARGS;
  unsigned more = 0, more_kept;
  memcpy(c->kargs, p->ks.kargs, kept * sizeof *c->kargs);
  if (keep && p->ks.n > kept) { /* the rest after the record (shim.h) */
    more = cl_ring_put_kargs(p->ks.kargs + kept, p->ks.n - kept, &more_kept);
    kept += more_kept;
  }
  c->nkargs = (uint16_t)kept;
  c->kargs_truncated = p->ks.truncated || kept < p->ks.n;
  c->kargs_deferred = p->ks.deferred;
  c->kargs_gen = p->ks.gen;
  c->kargs_code = p->ks.code;
  memset(&c->a, 0, sizeof c->a);
  /* out-parameters are only meaningful when the call succeeded */
  int ok = c->result == 0;
  struct copy_sides sides = COPY_SIDES_UNREAD;
  if (ok || api->op == CL_OP_QUERY_STREAM || api->op == CL_OP_QUERY_EVENT ||
      api->op == CL_OP_SYNC_STREAM || api->op == CL_OP_SYNC_EVENT ||
      api->op == CL_OP_STREAM_DESTROY || api->op == CL_OP_EVENT_DESTROY ||
      api->op == CL_OP_FREE)
    cl_api_decode(api, cb->functionParams, &c->a);
  /* cuCtxEnablePeerAccess names the peer by its context */
  if (ok && (api->op == CL_OP_PEER_ENABLE || api->op == CL_OP_PEER_DISABLE) &&
      c->a.handle)
    c->a.peer = device_of(ts, (CUcontext)(uintptr_t)c->a.handle);
  if (ok && api->op == CL_OP_ALLOC) {
    cl_memquery_resolve(&c->a);
    /* a reserved range is no memory: its mappings are */
    if (c->a.memkind != CL_MEMKIND_RESERVED)
      cl_allocmap_add(c->a.dst, c->a.bytes, c->a.memkind, c->a.flags,
                      memory_device(&c->a, c->device));
  } else if (ok && api->op == CL_OP_COPY && !c->a.has_device) {
    copy_devices(&c->a, c->device, &sides);
  } else if (ok && api->op == CL_OP_FREE &&
             c->a.memkind == CL_MEMKIND_MAPPED) {
    cl_allocmap_remove_range(c->a.dst, c->a.bytes);
  } else if (ok && api->op == CL_OP_FREE &&
             c->a.memkind != CL_MEMKIND_RESERVED) {
    /* cudaFree also frees managed memory: the row takes the allocation's
     * kind when the allocation was seen */
    int kind = cl_allocmap_kind(c->a.dst, 1);
    if (kind != CL_MEMKIND_UNKNOWN)
      c->a.memkind = (uint8_t)kind;
    cl_allocmap_remove(c->a.dst);
  }
  /* graphs: which call added a node, and a capture's begin and end (before
   * the host check, which asks whether a launch's stream captures) */
  if (api->op == CL_OP_CAPTURE_BEGIN || api->op == CL_OP_CAPTURE_END) {
    if (ok || api->op == CL_OP_CAPTURE_END)
      cl_graph_capture(api->op == CL_OP_CAPTURE_BEGIN);
  } else if (ok && api->op == CL_OP_GRAPH_NODE) {
    cl_graph_node_added(c->a.handle, c->seq);
  } else if (ok && adds_node(api)) {
    cl_graph_captured(cl_stream_of(api, c->a.stream), c->seq);
  }
  struct cl_gexec_rec snap = {.seq = c->seq, .exec = c->a.handle,
                              .graph = c->a.graph, .device = c->device};
  uint64_t node = c->a.dst; /* (the writer may take the record at once) */
  CL_PHASE_BEGIN(t2);
  if (ok)
    guard_after(api, c, &p->ks, cb->symbolName, &sides);
  CL_PHASE_END(CL_PH_GUARD, t2);
  if (keep)
    cl_ring_commit_n(1 + more);
  if (p->ks.deferred) /* (kparams.h) */
    cl_ring_release();
  /* after the call's own record, in seq order */
  if (ok && api->op == CL_OP_GRAPH_EXEC)
    cl_graph_snapshot(snap.seq, snap.exec, snap.graph, snap.device);
  else if (ok && api->op == CL_OP_GRAPH_EXEC_NODE)
    cl_graph_exec_kernel(snap.seq, snap.exec, node, p->ks.kargs, p->ks.n,
                         p->ks.truncated);
  CL_PHASE_END(CL_PH_RECORD, t0);
  if (p->freed_copy) /* after the free's own record, in seq order */
    cl_hostguard_record("free", cl_next_seq(), p->freed_addr, p->freed_copy,
                        p->frames, p->nframes,
                        p->pystack);
}

static void on_resource(struct thread_state *ts, CUpti_CallbackId cbid,
                        const CUpti_ResourceData *rd)
{
  if (cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
    cl_kparams_module_unloading();
    return;
  }
  int created = cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED;
  if (!created && cbid != CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
    return;
  if (!created)
    cl_activity_flush(0); /* its activity records go with it */
  uint32_t uid = 0;
  cl_cupti.cuptiGetContextId(rd->context, &uid);
  int32_t dev = device_of(ts, rd->context);
  if (ts->last_ctx == rd->context && !created)
    ts->last_ctx = NULL;
  if (created && dev >= 0)
    cl_device_describe(dev);
  struct cl_record *r = cl_ring_reserve(CL_REC_CONTEXT);
  if (!r)
    return;
  r->type = CL_REC_CONTEXT;
  r->u.ctx = (struct cl_context_rec){.seq = cl_next_seq(),
                                     .handle = (uint64_t)(uintptr_t)rd->context,
                                     .uid = uid,
                                     .device = dev,
                                     .destroyed = (uint8_t)!created};
  cl_ring_commit();
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
  (void)userdata;
  if (atomic_load_explicit(&bench_floor, memory_order_relaxed) &&
      domain != CUPTI_CB_DOMAIN_RESOURCE)
    return;
  struct thread_state *ts = T;
  if (!ts && !(ts = cl_thread_calloc((void **)&T, sizeof *T)))
    return;
  if (ts->busy)
    return;
  unsigned gen = atomic_load_explicit(&bench_gen, memory_order_relaxed);
  if (ts->bench_gen != gen) { /* calls whose other end a phase hid */
    ts->depth = ts->runtime_depth = 0;
    ts->bench_gen = gen;
  }
  ts->busy = 1;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API ||
      domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    const CUpti_CallbackData *cb = data;
    int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    CL_PHASE_BEGIN(t0);
    if (cb->callbackSite == CUPTI_API_ENTER)
      api_enter(ts, runtime, cbid, cb);
    else if (!runtime && ts->runtime_depth > 0)
      folded_exit(ts, cb);
    else
      api_exit(ts, runtime, cb);
    CL_PHASE_END(CL_PH_CALLBACK, t0);
#ifdef CUDALENS_SELFTIME
    if (!runtime && ts->runtime_depth > 0)
      CL_PHASE_END(CL_PH_NESTED, t0);
#endif
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    on_resource(ts, cbid, data);
  }
  ts->busy = 0;
}

/* Subscribe, and enable what is recorded: api.def's CUPTI rows, the
 * resource callbacks and the activity kinds. */
static CUptiResult attach(void)
{
  CUptiResult r = cl_cupti.cuptiSubscribe(&subscriber, on_callback, NULL);
  if (r != CUPTI_SUCCESS)
    return r;
  for (unsigned i = 0; i < cl_api_nccl_first; i++) { /* CUPTI's rows */
    const struct cl_api *e = &cl_api_table[i];
    r = cl_cupti.cuptiEnableCallback(1, subscriber, e->domain, e->cbid);
    if (r != CUPTI_SUCCESS)
      CL_LOG(CL_LOG_INFO, "cannot enable the callback for %s: %s",
             cl_api_name(e), cl_cupti_error(r));
  }
  cl_cupti.cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  cl_cupti.cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  cl_cupti.cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING);
  atomic_store(&subscribed, 1);
  if (cl_cfg.gpu_activity && cl_activity_start())
    cl_cfg.gpu_activity = 0;
  return CUPTI_SUCCESS;
}

int cl_capture_start(void)
{
  CUptiResult r = attach();
  if (r != CUPTI_SUCCESS) {
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
      CL_LOG(CL_LOG_ERROR, "another tool (nsys, ncu, a debugger or "
                           "torch.profiler) already holds CUPTI; this run is "
                           "not recorded");
    else
      CL_LOG(CL_LOG_ERROR, "cannot subscribe to CUPTI (%s); this run is not "
                           "recorded", cl_cupti_error(r));
    return -1;
  }
  return 0;
}

static void cl_capture_flush(void)
{
  if (atomic_load(&subscribed) && cl_cfg.gpu_activity)
    cl_activity_flush(1);
}

void cl_capture_stop(void)
{
  if (!atomic_load(&subscribed))
    return;
  cl_capture_flush();
  atomic_store(&subscribed, 0);
  cl_cupti.cuptiUnsubscribe(subscriber);
}

int cl_capture_bench_phase(int phase)
{
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static int now = CL_BENCH_ON;
  if (phase < CL_BENCH_OFF || phase > CL_BENCH_ON)
    return -1;
  int rc = 0;
  pthread_mutex_lock(&lock);
  if (now != CL_BENCH_OFF && !atomic_load(&subscribed)) {
    rc = -1; /* not recording */
  } else if (now == CL_BENCH_OFF && phase != CL_BENCH_OFF) {
    rc = attach() == CUPTI_SUCCESS ? 0 : -1;
  } else if (now != CL_BENCH_OFF && phase == CL_BENCH_OFF) {
    /* detached, not only disabled: a subscriber with every callback and
     * activity kind disabled still cost launch-bound loops ~40% on the
     * H100 (bench/README.md) */
    cl_capture_stop();
    cl_cupti.cuptiFinalize();
  }
  if (!rc) {
    atomic_store(&bench_floor, phase == CL_BENCH_FLOOR);
    atomic_fetch_add(&bench_gen, 1);
    now = phase;
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

int cl_capture_recording(void)
{
  return atomic_load(&subscribed);
}

/* hostfn.c - host functions as observed synchronization.  A host function
 * (cudaLaunchHostFunc, cuLaunchHostFunc) or stream callback
 * (cudaStreamAddCallback, cuStreamAddCallback) runs, on a thread of the
 * driver's, once all work enqueued before it in its stream has completed
 * ([API] cudaLaunchHostFunc, ops.def HOST_FUNC): its thread learns then that
 * the stream's earlier work is done, and may hand that on to any thread
 * (XLA returns a pinned staging buffer to its pool from one).  The ENTER
 * callback of the driver's cuLaunchHostFunc / cuStreamAddCallback (called
 * by itself, or inside the runtime's cudaLaunchHostFunc /
 * cudaStreamAddCallback) replaces the function pointer and user data in
 * the call's parameters with trampoline() and a slot holding the two: the
 * driver enqueues what the subscriber left there (measured on an H100 with
 * CUDA 13, issue 20: at the driver's ENTER it takes effect, for calls
 * captured into graphs too; at the runtime's it does not, the runtime
 * having read its arguments already).  The trampoline records when and on
 * which thread the function ran (a host_func_runs row), lifts the host
 * check's guards the run covers, and calls the user's function with the
 * user's data, unchanged, at the moment the driver chose.  Inside
 * cudaStreamAddCallback the function the driver gets is the runtime's own
 * (which calls the user's): that is the one wrapped.
 *
 * A slot is taken at the ENTER callback and given back when the trampoline
 * ran, before it calls the user's function; one enqueued while a stream is
 * being captured becomes a graph's host node that may run at every launch,
 * and is never given back.  When every slot is taken the call goes through
 * unchanged and the host function is not observed (counted as dropped: the
 * analysis then cannot see the handoff, and the host check falls back to
 * lifting the guards when the function is enqueued).
 *
 * The trampoline runs on the driver's thread, outside any signal handler;
 * it takes no lock the program can hold, allocates only this thread's ring
 * once, keeps errno, and never blocks longer than the ring does. */
#include <errno.h>
#include <string.h>

#include "hostfn.h"
#include "hostguard.h"
#include "ring.h"
#include "shim.h"
#include "threads.h"

#define SLOTS 4096

struct slot {
  _Atomic int used;
  uint8_t callback;     /* (stream, status, data), else (data) */
  uint8_t keep;         /* a graph's host node: runs at every launch */
  void *fn, *data;
  uint32_t correlation; /* the enqueueing call's */
  uint64_t stream, tid; /* the stream as the host check names it */
  uint64_t before;      /* the last seq taken when it was enqueued */
};
static struct slot slots[SLOTS];
static _Atomic unsigned cursor;
static _Atomic uint64_t unobserved;

typedef void (*host_fn)(void *);
typedef void (*stream_cb)(void *, int, void *);

static void ran(struct slot *s)
{
  int saved = errno;
  cl_threads_before_record();
  struct cl_record *r = cl_ring_reserve(CL_REC_HOSTFN);
  uint64_t seq = cl_next_seq();
  if (r) {
    r->type = CL_REC_HOSTFN;
    r->u.hostfn = (struct cl_hostfn_rec){.seq = seq,
                                         .ns = cl_now_ns(),
                                         .tid = cl_gettid(),
                                         .correlation = s->correlation};
    cl_ring_commit();
  }
  /* what the stream did before the function was enqueued is done: its
   * guards go (any thread may be told so now).  Not for a graph's host
   * node: it runs after the graph's nodes before it, at a launch on any
   * stream, and copies inside graphs are not guarded. */
  if (!s->keep)
    cl_hostguard_sync(CL_OP_HOST_FUNC, -1, s->stream, s->tid, 0,
                      s->before + 1);
  errno = saved;
}

static void trampoline(void *p)
{
  struct slot *s = p;
  host_fn fn = (host_fn)s->fn;
  void *data = s->data;
  ran(s);
  if (!s->keep)
    atomic_store_explicit(&s->used, 0, memory_order_release);
  fn(data);
}

static void trampoline_cb(void *stream, int status, void *p)
{
  struct slot *s = p;
  stream_cb fn = (stream_cb)s->fn;
  void *data = s->data;
  ran(s);
  if (!s->keep)
    atomic_store_explicit(&s->used, 0, memory_order_release);
  fn(stream, status, data);
}

static struct slot *take(void)
{
  unsigned start = atomic_fetch_add(&cursor, 1);
  for (unsigned i = 0; i < SLOTS; i++) {
    struct slot *s = &slots[(start + i) % SLOTS];
    int free_ = 0;
    if (!atomic_load_explicit(&s->used, memory_order_relaxed) &&
        atomic_compare_exchange_strong(&s->used, &free_, 1))
      return s;
  }
  return NULL;
}

/* The parameters of all four calls (and their _ptsz forms) begin with the
 * stream, the function and its data (generated_cuda_meta.h,
 * generated_cuda_runtime_api_meta.h). */
struct hostfn_params {
  void *stream;
  void *fn;
  void *data;
};

void *cl_hostfn_wrap(const struct cl_api *api, const void *params,
                     uint32_t correlation, uint64_t stream, uint64_t tid,
                     int captured)
{
  struct hostfn_params *P = (struct hostfn_params *)(uintptr_t)params;
  if (!P || !P->fn || P->fn == (void *)trampoline ||
      P->fn == (void *)trampoline_cb)
    return NULL; /* the call fails by itself, or is wrapped already */
  struct slot *s = take();
  if (!s) {
    atomic_fetch_add(&unobserved, 1);
    return NULL;
  }
  s->callback = strstr(cl_api_name(api), "AddCallback") != NULL;
  s->keep = (uint8_t)(captured != 0);
  s->fn = P->fn;
  s->data = P->data;
  s->correlation = correlation;
  s->stream = stream;
  s->tid = tid;
  s->before = atomic_load(&cl_seq.last);
  atomic_thread_fence(memory_order_release);
  P->fn = s->callback ? (void *)trampoline_cb : (void *)trampoline;
  P->data = s;
  return s;
}

/* The driver call failed: it will not run the function, and its slot is
 * given back. */
void cl_hostfn_failed(void *slot)
{
  struct slot *s = slot;
  if (s >= slots && s < slots + SLOTS)
    atomic_store_explicit(&s->used, 0, memory_order_release);
}

uint64_t cl_hostfn_take_unobserved(void)
{
  return atomic_exchange(&unobserved, 0);
}

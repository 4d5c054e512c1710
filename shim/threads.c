/* threads.c - host-thread ordering the analysis can see: pthread_create and
 * pthread_join (which std::thread and Python's threading use) are wrapped so
 * that the creation of a thread and its join become records, happens-before
 * edges between host threads (POSIX.1 4.12 "Memory Synchronization";
 * include/cudalens/ops.def, THREAD_CREATE_JOIN).
 *
 * A create edge is written by the new thread, lazily, just before its first
 * CUDA record (threads that never use CUDA cost one small allocation and
 * write nothing); it carries the seq taken when pthread_create was called,
 * so it sorts where the creation happened.  A join edge is written by the
 * joining thread when pthread_join returned 0 for a thread that recorded
 * anything.  While the shim is not recording, both wrappers only forward.
 * A thread created inside an NCCL call is NCCL's (nccl.h, cl_nccl_adopt). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "capture.h"
#include "nccl.h"
#include "ring.h"
#include "shim.h"
#include "threads.h"

/* what the creating thread hands to the new one; freed at the join (a
 * detached thread's is kept: a few bytes per thread) */
struct spawn {
  void *(*fn)(void *);
  void *arg;
  uint64_t create_seq;
  uint32_t parent;
  _Atomic uint32_t child;    /* its tid once it recorded something */
  int nccl;                  /* created inside an NCCL call: NCCL's thread */
};

/* pthread_t -> spawn, for the join; lock-free claim of free slots */
#define SLOTS 1024
static struct {
  _Atomic uintptr_t thread;
  struct spawn *s;
} slots[SLOTS];

__thread struct spawn *cl_threads_pending; /* this thread's unwritten create edge */

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
                         void *(*)(void *), void *);
typedef int (*join_fn)(pthread_t, void **);

static void put(enum cl_thread_edge kind, uint64_t seq, uint32_t tid,
                uint32_t other)
{
  struct cl_record *r = cl_ring_reserve(CL_REC_THREAD);
  if (!r)
    return; /* counted as dropped by the ring */
  r->type = CL_REC_THREAD;
  r->u.thread = (struct cl_thread_rec){seq, tid, other, (uint8_t)kind};
  cl_ring_commit();
}

void cl_threads_write_pending(void)
{
  struct spawn *s = cl_threads_pending;
  if (!s)
    return;
  cl_threads_pending = NULL;
  uint32_t self = cl_gettid();
  atomic_store(&s->child, self);
  put(CL_THREAD_CREATE, s->create_seq, s->parent, self);
}

static void *trampoline(void *p)
{
  struct spawn *s = p;
  cl_threads_pending = s;
  if (s->nccl)
    cl_nccl_adopt();
  return s->fn(s->arg);
}

CL_EXPORT int
pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
               void *arg)
{
  static create_fn real;
  if (!real)
    real = (create_fn)cl_dl_sym_real(RTLD_NEXT, "pthread_create");
  if (!real)
    return EAGAIN;
  struct spawn *s = cl_capture_recording() ? malloc(sizeof *s) : NULL;
  if (!s)
    return real(t, attr, fn, arg);
  *s = (struct spawn){fn, arg, cl_next_seq(), cl_gettid(), 0, cl_nccl_inside()};
  int rc = real(t, attr, trampoline, s);
  if (rc) {
    free(s);
    return rc;
  }
  int detached = 0;
  if (attr && pthread_attr_getdetachstate(attr, &detached) == 0 &&
      detached == PTHREAD_CREATE_DETACHED)
    return rc; /* never joined: no slot (its spawn stays allocated) */
  for (unsigned i = 0, h = (unsigned)(*t >> 4) % SLOTS; i < SLOTS; i++) {
    unsigned k = (h + i) % SLOTS;
    uintptr_t zero = 0;
    if (atomic_compare_exchange_strong(&slots[k].thread, &zero, 1)) {
      slots[k].s = s;
      atomic_store(&slots[k].thread, (uintptr_t)*t);
      break;
    }
  }
  return rc;
}

CL_EXPORT int pthread_join(pthread_t t, void **ret)
{
  static join_fn real;
  if (!real)
    real = (join_fn)cl_dl_sym_real(RTLD_NEXT, "pthread_join");
  if (!real)
    return ESRCH;
  int rc = real(t, ret);
  if (rc)
    return rc;
  for (unsigned i = 0, h = (unsigned)(t >> 4) % SLOTS; i < SLOTS; i++) {
    unsigned k = (h + i) % SLOTS;
    if (atomic_load(&slots[k].thread) != (uintptr_t)t)
      continue;
    struct spawn *s = slots[k].s;
    atomic_store(&slots[k].thread, 0);
    uint32_t child = atomic_load(&s->child);
    if (child && cl_capture_recording()) {
      cl_threads_before_record();
      put(CL_THREAD_JOIN, cl_next_seq(), cl_gettid(), child);
    }
    free(s);
    break;
  }
  return rc;
}

/* a detached thread is never joined: forget it (its spawn stays
 * allocated, the thread may still write into it) */
CL_EXPORT int pthread_detach(pthread_t t)
{
  static int (*real)(pthread_t);
  if (!real)
    real = (int (*)(pthread_t))cl_dl_sym_real(RTLD_NEXT, "pthread_detach");
  if (!real)
    return ESRCH;
  int rc = real(t);
  if (rc == 0)
    for (unsigned k = 0; k < SLOTS; k++)
      if (atomic_load(&slots[k].thread) == (uintptr_t)t)
        atomic_store(&slots[k].thread, 0);
  return rc;
}

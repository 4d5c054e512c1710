/* hostguard.c - catches the host touching pinned memory while an async copy
 * on it is still in flight.  When an async copy between the device and
 * pinned host memory is issued, the host pages it covers are protected (no
 * access for a device-to-host destination, read-only for a host-to-device
 * source); the synchronization that covers the copy (its stream, an event
 * recorded after it, the device, or a successful query) lifts the protection.
 * DMA is not affected by CPU page protection.  A host access to a protected
 * page faults into on_fault(), which records it (address, thread, stack, the
 * copy), lifts the protection and returns, so the access runs again and the
 * program's behaviour is unchanged.  Faults that are not ours go to the
 * handler the program installed (see sigwrap.c).  CUDALENS_HOSTGUARD=0 turns
 * this off.
 *
 * The same guards cover the other device work the host can race with
 * (issue 9): an async memset of pinned or managed memory, an async copy
 * with managed memory on either side, and a kernel launched with pointer
 * arguments into managed memory (not attached to the host) or pinned memory
 * (mapped: on a unified address space it all is), found by kparams.c and
 * resolved to the whole allocation (cl_hostguard_kernel).  copy_seq is then
 * the memset's or the launch's seq.  A kernel's guard is read-only when all
 * its arguments into the allocation are pointers to const.
 *
 * The check must never kill the program (issue 9): a fault on a page that is
 * protected, or whose protection is being or was lately lifted, is ours, and
 * the access is retried.  The fault of one thread races with another thread
 * lifting the same pages (the copy's synchronization, another thread's fault
 * on the same copy): the handler looks the guards up without the lock
 * (sequence counts), with a list of recently lifted ranges for the faults
 * whose guard went between the fault and the look-up, and only tries the
 * lock (see on_fault).
 *
 * Only whole pages inside the copy's byte range are protected, so accesses
 * outside the range are never reported; a fault by code inside the CUDA
 * libraries lifts the protection without a report.
 *
 * The kernel does not fault on a protected page: a system call reading or
 * filling one fails with EFAULT instead.  syscalls.c lifts the protection
 * over a call's buffers while it runs (cl_hostguard_lift), and when it is
 * over (cl_hostguard_settle) the copies whose pages it transferred are
 * reported, like a fault, and released; the others are protected again. */
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "cudalens/semantics.h"
#include "cl_unwind.h"
#include "shim.h"

#define MAX_GUARDS 512
/* A guard is written only under guard_lock, and read without it by the
 * fault handler (on_fault, on any thread, possibly while another thread is
 * inside mprotect for the same pages, or interrupting this thread's own
 * writer): seq is a sequence count, odd while the fields change, so the
 * handler reads a consistent copy or knows the slot is in flux. */
struct guard {
  _Atomic uint64_t seq;   /* even: stable; odd: being changed (under the lock) */
  _Atomic uint64_t hit;   /* == seq: a fault claimed this guard (reported once,
                           * its pages lifted); the next writer releases it */
  int active;
  int readonly;           /* host-to-device source: writes fault */
  uint64_t lo, hi;        /* protected pages */
  uint64_t start, end;    /* the copy's host bytes */
  uint64_t copy_seq, stream, tid;
  int32_t device;
  uint64_t birth;         /* order of creation */
};
static struct guard guards[MAX_GUARDS];
static atomic_flag guard_lock = ATOMIC_FLAG_INIT;
static __thread int holding; /* this thread holds guard_lock */
static uint64_t page_size;
static int enabled;
static uint64_t births;

/* Ranges whose protection was lifted lately (or is being lifted), for the
 * fault handler: a fault can be taken on a page just before the protection
 * goes, and its handler run just after the guard is gone (the copy's
 * synchronization on another thread, another thread's fault on the same
 * copy).  Such a fault is still ours: the access is retried, never handed to
 * the program's handler or the default action.  An entry is pushed before
 * its guard is marked inactive and stamped once the pages are lifted; it
 * counts for RECENT_NS after that.  Written under the lock, read by the
 * handler through seq like the guards. */
#define MAX_RECENT 4096
#define RECENT_NS 5000000000ull
static struct recent {
  _Atomic uint64_t seq;
  uint64_t lo, hi;
  _Atomic uint64_t lifted_ns; /* 0: being lifted */
} recent[MAX_RECENT];
static uint64_t recent_head;
/* the span of every range ever pushed: other faults skip the search */
static _Atomic uint64_t recent_lo = UINT64_MAX, recent_hi;

/* active guards, and the span of their pages: what a system call checks
 * before anything else (written under the lock) */
_Atomic unsigned cl_hostguard_armed;
static _Atomic uint64_t armed_lo = UINT64_MAX, armed_hi;

/* ranges lifted for system calls in progress (syscalls.c) */
#define MAX_LIFTS 64
static struct lift {
  int used, kernel_writes;
  uint64_t lo, hi;        /* pages */
  uint64_t births;        /* guards born later are not this call's business */
} lifts[MAX_LIFTS];

/* streams created non-blocking (cudaStreamNonBlocking): the legacy default
 * stream does not wait for them, so its synchronization does not lift their
 * guards ([API] cudaStreamCreateWithFlags, ops.def NONBLOCKING_STREAM).
 * Streams not seen created count as blocking (never a false report).
 * Written under the lock. */
#define MAX_NONBLOCKING 1024
static uint64_t nonblocking[MAX_NONBLOCKING];

static int is_nonblocking(uint64_t stream)
{
  if (stream == 0 || stream == CL_STREAM_PER_THREAD)
    return 0;
  for (int i = 0; i < MAX_NONBLOCKING; i++)
    if (nonblocking[i] == stream)
      return 1;
  return 0;
}

/* events: the stream and order of their latest record */
#define MAX_EVENTS 1024
static struct {
  uint64_t event, stream, tid, seq;
} events[MAX_EVENTS];

static void lock(void)
{
  while (atomic_flag_test_and_set_explicit(&guard_lock, memory_order_acquire))
    ;
  holding = 1;
}
static int trylock(void)
{
  if (atomic_flag_test_and_set_explicit(&guard_lock, memory_order_acquire))
    return 0;
  holding = 1;
  return 1;
}
static void unlock(void)
{
  holding = 0;
  atomic_flag_clear_explicit(&guard_lock, memory_order_release);
}

/* ---- changing guards (lock held) ------------------------------------------- */
static void begin_change(struct guard *g)
{
  atomic_fetch_add(&g->seq, 1); /* odd */
  atomic_thread_fence(memory_order_release);
}
static void end_change(struct guard *g)
{
  atomic_fetch_add(&g->seq, 1); /* even again: the handler may use it */
}
static int is_hit(struct guard *g)
{
  return atomic_load(&g->hit) == atomic_load(&g->seq);
}

static struct recent *recent_push(uint64_t lo, uint64_t hi)
{
  struct recent *r = &recent[recent_head++ % MAX_RECENT];
  if (lo < atomic_load(&recent_lo))
    atomic_store(&recent_lo, lo);
  if (hi > atomic_load(&recent_hi))
    atomic_store(&recent_hi, hi);
  atomic_fetch_add(&r->seq, 1);
  atomic_thread_fence(memory_order_release);
  r->lo = lo;
  r->hi = hi;
  atomic_store(&r->lifted_ns, 0);
  atomic_fetch_add(&r->seq, 1);
  return r;
}

/* ---- host accesses, handed to the writer (signal-safe, fixed size) -------- */
#define MAX_ACCESSES 1024
static struct cl_host_access accesses[MAX_ACCESSES];
static _Atomic int access_ready[MAX_ACCESSES];
static _Atomic uint64_t access_head, access_tail, access_lost;

static struct cl_host_access *access_reserve(void)
{
  uint64_t t = atomic_fetch_add(&access_tail, 1);
  if (t - atomic_load(&access_head) >= MAX_ACCESSES) {
    atomic_fetch_sub(&access_tail, 1);
    atomic_fetch_add(&access_lost, 1);
    return NULL;
  }
  return &accesses[t % MAX_ACCESSES];
}

static void access_publish(struct cl_host_access *a)
{
  atomic_store_explicit(&access_ready[a - accesses], 1, memory_order_release);
}

void cl_hostguard_drain(void (*fn)(const struct cl_host_access *, void *),
                        void *arg, uint64_t *lost)
{
  for (;;) {
    uint64_t h = atomic_load(&access_head);
    if (h == atomic_load(&access_tail))
      break;
    int i = (int)(h % MAX_ACCESSES);
    if (!atomic_load_explicit(&access_ready[i], memory_order_acquire))
      break; /* still being written */
    fn(&accesses[i], arg);
    atomic_store(&access_ready[i], 0);
    atomic_store(&access_head, h + 1);
  }
  *lost = atomic_exchange(&access_lost, 0);
}

/* ---- the CUDA libraries' own code (their faults are not the user's) ------- */
#define MAX_VENDOR 8
static struct {
  uint64_t lo, hi;
} vendor[MAX_VENDOR];
static int nvendor;

static int add_vendor(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  (void)arg;
  const char *base = strrchr(info->dlpi_name, '/');
  base = base ? base + 1 : info->dlpi_name;
  if (strncmp(base, "libcuda.", 8) && strncmp(base, "libcudart", 9) &&
      strncmp(base, "libcupti", 8))
    return 0;
  for (int i = 0; i < info->dlpi_phnum && nvendor < MAX_VENDOR; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      vendor[nvendor].lo = info->dlpi_addr + ph->p_vaddr;
      vendor[nvendor].hi = vendor[nvendor].lo + ph->p_memsz;
      nvendor++;
    }
  }
  return 0;
}

static int in_vendor(uint64_t ip)
{
  for (int i = 0; i < nvendor; i++)
    if (ip >= vendor[i].lo && ip < vendor[i].hi)
      return 1;
  return 0;
}

/* ---- protection ---------------------------------------------------------- */
/* Re-apply the protection [lo, hi) should have given the active guards (the
 * most restrictive one wins) and the lifts of system calls in progress, one
 * mprotect per stretch of equal protection; caller holds the lock. */
#define MAX_CUTS (2 * MAX_GUARDS + 2 * MAX_LIFTS + 2)
static void add_cuts(uint64_t *cut, int *ncut, uint64_t lo, uint64_t hi,
                     uint64_t a, uint64_t b)
{
  if (b <= lo || a >= hi)
    return;
  if (a > lo)
    cut[(*ncut)++] = a;
  if (b < hi)
    cut[(*ncut)++] = b;
}

/* protection changes made by writers (the handler's stuck-fault check) */
static _Atomic uint64_t prot_changes;

static int protecting(struct guard *g)
{
  return g->active && !is_hit(g);
}

static void reprotect(uint64_t lo, uint64_t hi)
{
  uint64_t cut[MAX_CUTS];
  int ncut = 0;
  atomic_fetch_add(&prot_changes, 1);
  cut[ncut++] = lo;
  cut[ncut++] = hi;
  for (int i = 0; i < MAX_GUARDS; i++)
    if (protecting(&guards[i]))
      add_cuts(cut, &ncut, lo, hi, guards[i].lo, guards[i].hi);
  for (int i = 0; i < MAX_LIFTS; i++)
    if (lifts[i].used)
      add_cuts(cut, &ncut, lo, hi, lifts[i].lo, lifts[i].hi);
  for (int i = 1; i < ncut; i++) /* insertion sort: usually a few cuts */
    for (int j = i; j > 0 && cut[j] < cut[j - 1]; j--) {
      uint64_t t = cut[j];
      cut[j] = cut[j - 1];
      cut[j - 1] = t;
    }
  for (int k = 0; k + 1 < ncut; k++) {
    uint64_t a = cut[k], b = cut[k + 1];
    if (a >= b)
      continue;
    int prot = PROT_READ | PROT_WRITE;
    for (int i = 0; i < MAX_GUARDS; i++) {
      struct guard *g = &guards[i];
      if (protecting(g) && a >= g->lo && a < g->hi)
        prot = g->readonly && prot != PROT_NONE ? PROT_READ : PROT_NONE;
    }
    for (int i = 0; i < MAX_LIFTS && prot != (PROT_READ | PROT_WRITE); i++)
      if (lifts[i].used && a >= lifts[i].lo && a < lifts[i].hi)
        prot = lifts[i].kernel_writes ? PROT_READ | PROT_WRITE : PROT_READ;
    mprotect((void *)(uintptr_t)a, b - a, prot);
  }
  atomic_fetch_add(&prot_changes, 1);
}

/* The range goes into recent[] before the guard stops being active, so that
 * the handler of a fault taken before the pages are lifted always finds it
 * in one or the other. */
static void release(struct guard *g)
{
  struct recent *r = recent_push(g->lo, g->hi);
  begin_change(g);
  g->active = 0;
  end_change(g);
  reprotect(g->lo, g->hi);
  atomic_store(&r->lifted_ns, cl_monotonic_ns());
  if (atomic_fetch_sub(&cl_hostguard_armed, 1) == 1) {
    atomic_store(&armed_lo, UINT64_MAX);
    atomic_store(&armed_hi, 0);
  }
}

/* The guards a fault claimed while the lock was busy (their pages were
 * lifted by the handler itself) are released by the next writer. */
static void wlock(void)
{
  lock();
  for (int i = 0; i < MAX_GUARDS; i++)
    if (guards[i].active && is_hit(&guards[i]))
      release(&guards[i]);
}

static int same_stream(const struct guard *g, uint64_t stream, uint64_t tid)
{
  return g->stream == stream && (stream != CL_STREAM_PER_THREAD || g->tid == tid);
}

/* copies issued while a stream is being captured into a graph only
 * describe work: they are not in flight */
static _Atomic int capturing;

void cl_hostguard_capture(int begin)
{
  if (begin)
    atomic_fetch_add(&capturing, 1);
  else if (atomic_load(&capturing) > 0)
    atomic_fetch_sub(&capturing, 1);
}

/* A guard on the whole pages of [start, end) for device work seq (a copy,
 * a memset or a kernel): readonly when the device only reads them.  merge
 * (kernels): an active guard of the same pages and stream, as strict or
 * stricter, takes the later work's seq instead of a second guard being
 * made (a loop of launches on one buffer costs no mprotect after the
 * first); the later work is in flight as long as the earlier may be.  A
 * reader after a writer gets a guard of its own: a synchronization that
 * covers the writer leaves only the reader's read-only protection. */
static void guard_pages(uint64_t seq, uint64_t stream, uint64_t tid,
                        int32_t device, int readonly, uint64_t start,
                        uint64_t end, int merge)
{
  uint64_t lo = (start + page_size - 1) & ~(page_size - 1);
  uint64_t hi = end & ~(page_size - 1);
  if (hi <= lo)
    return; /* no whole page inside */
  cl_sigwrap_reclaim(); /* a fault must reach dispatch(), not the program */
  wlock();
  if (!nvendor)
    dl_iterate_phdr(add_vendor, NULL);
  struct guard *g = NULL;
  for (int i = 0; merge && i < MAX_GUARDS && !g; i++) {
    struct guard *m = &guards[i];
    if (m->active && m->lo == lo && m->hi == hi && m->device == device &&
        same_stream(m, stream, tid) && (m->readonly == readonly || !readonly)) {
      int stricter = m->readonly && !readonly;
      begin_change(m);
      m->copy_seq = seq;
      m->readonly = readonly;
      m->start = start, m->end = end;
      m->birth = ++births;
      end_change(m);
      if (stricter) /* a writer after a reader: no access at all now */
        reprotect(lo, hi);
      unlock();
      return;
    }
  }
  for (int i = 0; i < MAX_GUARDS && !g; i++)
    if (!guards[i].active)
      g = &guards[i];
  if (g) {
    begin_change(g);
    g->active = 1;
    g->readonly = readonly;
    g->lo = lo, g->hi = hi;
    g->start = start, g->end = end;
    g->copy_seq = seq, g->stream = stream, g->tid = tid;
    g->device = device;
    g->birth = ++births;
    end_change(g); /* before the pages are protected */
    atomic_fetch_add(&cl_hostguard_armed, 1);
    if (lo < atomic_load(&armed_lo))
      atomic_store(&armed_lo, lo);
    if (hi > atomic_load(&armed_hi))
      atomic_store(&armed_hi, hi);
    reprotect(lo, hi);
  }
  unlock();
  if (!g)
    CL_LOG(CL_LOG_INFO, "more than %d copies and kernels in flight: not all "
                        "are checked", MAX_GUARDS);
}

void cl_hostguard_copy(uint64_t seq, uint64_t stream, uint64_t tid,
                       int32_t device, int dtoh, uint64_t host, uint64_t bytes)
{
  if (!enabled || !bytes || atomic_load(&capturing) > 0)
    return;
  int kind = cl_allocmap_kind(host, bytes);
  if (kind != CL_MEMKIND_PINNED && kind != CL_MEMKIND_REGISTERED &&
      kind != CL_MEMKIND_MANAGED)
    return;
  guard_pages(seq, stream, tid, device, !dtoh, host, host + bytes, 0);
}

/* A kernel whose arguments point into managed memory or pinned memory the
 * device can reach (mapped: on a unified address space every pinned
 * allocation is): the whole allocation is guarded until the kernel's
 * synchronization, read-only where every argument into it is a pointer to
 * const (const_params: bit i for parameter i). */
void cl_hostguard_kernel(uint64_t seq, uint64_t stream, uint64_t tid,
                         int32_t device, const struct cl_karg *kargs,
                         int nkargs, uint64_t const_params)
{
  if (!enabled || !nkargs || atomic_load(&capturing) > 0)
    return;
  struct {
    uint64_t start, end;
    int readonly;
  } reach[CL_MAX_KARGS];
  int n = 0;
  for (int i = 0; i < nkargs; i++) {
    uint64_t start, end;
    if (kargs[i].device_only ||
        !cl_allocmap_device_reach(kargs[i].value, &start, &end))
      continue;
    int ro = kargs[i].offset == 0 && kargs[i].param < 64 &&
             ((const_params >> kargs[i].param) & 1);
    int k;
    for (k = 0; k < n && reach[k].start != start; k++)
      ;
    if (k == n) {
      reach[n].start = start, reach[n].end = end, reach[n].readonly = ro;
      n++;
    } else if (!ro) {
      reach[k].readonly = 0;
    }
  }
  for (int k = 0; k < n; k++)
    guard_pages(seq, stream, tid, device, reach[k].readonly, reach[k].start,
                reach[k].end, 1);
}


void cl_hostguard_stream(uint64_t stream, int created, int nonblocking_flag)
{
  if (!enabled || !stream)
    return;
  wlock();
  for (int i = 0; i < MAX_NONBLOCKING; i++)
    if (nonblocking[i] == stream)
      nonblocking[i] = 0; /* destroyed, or a handle used again */
  for (int i = 0; created && nonblocking_flag && i < MAX_NONBLOCKING; i++)
    if (!nonblocking[i]) {
      nonblocking[i] = stream;
      break;
    }
  unlock();
}

/* the legacy default stream's synchronization covers g: same device, and
 * not a non-blocking stream */
static int legacy_covers(const struct guard *g, int32_t device)
{
  return g->device == device && !is_nonblocking(g->stream);
}

/* What the host knows once a call of class OP returned, from the ordering
 * table (ops.def, cl_op_sem): a device done, a stream's work so far, an
 * event's, or nothing.  Only documented knowledge lifts a guard: cudaFree
 * waits for the device only in practice (UNPROMISED), so a free with a
 * copy in flight is reported (cl_hostguard_free).  A blocking copy or
 * memset (RULE) comes here only where its rule of section 2 says the host
 * knows it finished: it waited for its stream, as a stream synchronization
 * does. */
static enum cl_host host_knows(enum cl_op op)
{
  const struct cl_op_sem *sem = cl_op_sem(op);
  if (sem->edge != CL_EDGE_DOC)
    return CL_HOST_NONE;
  return sem->host == CL_HOST_RULE ? CL_HOST_STREAM : sem->host;
}

/* the work of STREAM (0: the legacy default stream, which waits for the
 * blocking streams too: lift them all, streams not seen created included,
 * rather than risk a false report; non-blocking streams it does not wait
 * for) covers g */
static int stream_covers(const struct guard *g, int32_t device,
                         uint64_t stream, uint64_t tid)
{
  return stream == 0 ? legacy_covers(g, device) : same_stream(g, stream, tid);
}

void cl_hostguard_sync(enum cl_op op, int32_t device, uint64_t stream,
                       uint64_t tid, uint64_t event, uint64_t seq)
{
  enum cl_host host = host_knows(op);
  if (!enabled ||
      (host == CL_HOST_NONE && op != CL_OP_EVENT_RECORD &&
       op != CL_OP_HOST_FUNC))
    return;
  wlock();
  if (op == CL_OP_EVENT_RECORD) {
    int slot = -1;
    for (int i = 0; i < MAX_EVENTS; i++) {
      if (events[i].event == event) {
        slot = i;
        break;
      }
      if (slot < 0 && !events[i].event)
        slot = i;
    }
    if (slot >= 0)
      events[slot].event = event, events[slot].stream = stream,
      events[slot].tid = tid, events[slot].seq = seq;
    unlock();
    return;
  }
  for (int i = 0; i < MAX_GUARDS; i++) {
    struct guard *g = &guards[i];
    if (!g->active)
      continue;
    int covered = 0;
    if (op == CL_OP_HOST_FUNC) {
      /* not a synchronization, but a host function runs once the work
       * before it in its stream is done, and may hand the memory to any
       * thread (NVIDIA's simpleCallback): what came before it counts as
       * synchronized */
      covered = same_stream(g, stream, tid) && g->copy_seq < seq;
    } else if (host == CL_HOST_DEVICE) {
      covered = device < 0 || g->device == device;
    } else if (host == CL_HOST_STREAM) {
      covered = stream_covers(g, device, stream, tid);
    } else if (host == CL_HOST_EVENT) {
      /* the work its stream had when the event was recorded */
      for (int e = 0; e < MAX_EVENTS; e++)
        if (events[e].event == event && event)
          covered = stream_covers(g, device, events[e].stream,
                                  events[e].tid) &&
                    g->copy_seq < events[e].seq;
    }
    if (covered)
      release(g);
  }
  unlock();
}

/* A free of pinned memory with copies still in flight: the protection goes
 * first (the driver may touch the pages); returns the copy's seq or 0. */
uint64_t cl_hostguard_free(uint64_t addr)
{
  uint64_t copy = 0, lo, hi;
  if (!enabled || !cl_allocmap_find(addr, &lo, &hi))
    return 0;
  wlock();
  for (int i = 0; i < MAX_GUARDS; i++) {
    struct guard *g = &guards[i];
    if (g->active && g->start < hi && g->end > lo) {
      if (!copy)
        copy = g->copy_seq;
      release(g);
    }
  }
  unlock();
  return copy;
}

void cl_hostguard_record(const char *kind, uint64_t seq, uint64_t addr,
                         uint64_t copy_seq, const uint64_t *frames, int n,
                         uint32_t pystack)
{
  struct cl_host_access *a = access_reserve();
  if (!a)
    return;
  a->seq = seq;
  a->tid = cl_gettid();
  a->kind = kind;
  a->address = addr;
  a->copy_seq = copy_seq;
  a->pystack = pystack;
  a->nframes = (uint8_t)n;
  memcpy(a->frames, frames, (size_t)n * sizeof *frames);
  access_publish(a); /* the writer picks it up at its next pass */
}

/* ---- the fault handler ---------------------------------------------------- */
struct unwind {
  uint64_t *frames;
  int n, max;
  uint64_t ip;
  int found;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
  struct unwind *u = arg;
  uint64_t ip = cl_unwind.get_ip(ctx);
  if (!ip)
    return _URC_END_OF_STACK;
  if (!u->found) { /* skip the handler and the signal frame */
    u->found = ip == u->ip;
    return _URC_NO_REASON;
  }
  u->frames[u->n++] = ip;
  return u->n < u->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/* A consistent copy of a guard, read without the lock; 0 when the slot is
 * being changed (a guard being created protects nothing yet; one being
 * released is in recent[] already). */
struct snap {
  uint64_t seq, lo, hi, start, end, copy_seq;
  int active, readonly;
};

static int guard_read(struct guard *g, struct snap *o)
{
  for (int tries = 0; tries < 64; tries++) {
    uint64_t s1 = atomic_load(&g->seq);
    if (s1 & 1)
      return 0;
    o->active = __atomic_load_n(&g->active, __ATOMIC_RELAXED);
    o->readonly = __atomic_load_n(&g->readonly, __ATOMIC_RELAXED);
    o->lo = __atomic_load_n(&g->lo, __ATOMIC_RELAXED);
    o->hi = __atomic_load_n(&g->hi, __ATOMIC_RELAXED);
    o->start = __atomic_load_n(&g->start, __ATOMIC_RELAXED);
    o->end = __atomic_load_n(&g->end, __ATOMIC_RELAXED);
    o->copy_seq = __atomic_load_n(&g->copy_seq, __ATOMIC_RELAXED);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load(&g->seq) == s1) {
      o->seq = s1;
      return 1;
    }
  }
  return 0;
}

/* addr is in a range lifted lately, or being lifted now */
static int lately_lifted(uint64_t addr)
{
  if (addr < atomic_load(&recent_lo) || addr >= atomic_load(&recent_hi))
    return 0;
  uint64_t t = cl_monotonic_ns();
  for (int k = 0; k < MAX_RECENT; k++) {
    struct recent *r = &recent[k];
    uint64_t s1 = atomic_load(&r->seq);
    if (s1 & 1)
      continue; /* overwritten now: the oldest entry */
    uint64_t lo = __atomic_load_n(&r->lo, __ATOMIC_RELAXED);
    uint64_t hi = __atomic_load_n(&r->hi, __ATOMIC_RELAXED);
    uint64_t when = atomic_load(&r->lifted_ns);
    if (atomic_load(&r->seq) != s1 || addr < lo || addr >= hi)
      continue;
    if (!when || t - when <= RECENT_NS)
      return 1;
  }
  return 0;
}

/* consecutive faults of this thread on one page with no protection change
 * by the shim in between: the protection is not ours after all */
static __thread struct {
  uint64_t page, changes;
  unsigned n;
} stuck;

/* The rule: a fault on a page the shim protects, or protected lately, is
 * the shim's; the page is made accessible and the access runs again.  Only
 * a fault elsewhere goes to the program's handler or the default action.
 * No waiting here: the handler may run on any thread at any moment,
 * including inside this thread's own change of the guards (holding), and
 * while another thread is inside mprotect for the same pages.  The guards
 * are read through their sequence counts; the lock is only tried. */
static int on_fault(int sig, siginfo_t *si, void *uc)
{
  /* protection never gives anything but SEGV_ACCERR (an unmapped page is
   * not ours to retry) */
  if (!enabled || sig != SIGSEGV || si->si_code != SEGV_ACCERR)
    return 0;
  const ucontext_t *ctx = uc;
  uint64_t addr = (uint64_t)(uintptr_t)si->si_addr;
  uint64_t page = addr & ~(page_size - 1);
  uint64_t ip = (uint64_t)ctx->uc_mcontext.gregs[REG_RIP];
  int write = (ctx->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  uint64_t changes = atomic_load(&prot_changes);
  if (stuck.page == page && stuck.changes == changes) {
    if (++stuck.n > 1000) {
      stuck.n = 0;
      return 0;
    }
  } else {
    stuck.page = page, stuck.changes = changes, stuck.n = 0;
  }
  int ours = 0, read_only = 0, report = 0;
  uint64_t copy = 0;
  for (int i = 0; i < MAX_GUARDS; i++) {
    struct guard *g = &guards[i];
    struct snap sn;
    if (!guard_read(g, &sn) || !sn.active || addr < sn.lo || addr >= sn.hi)
      continue;
    if (!write && sn.readonly) {
      read_only = 1; /* a read it allows: the fault comes from elsewhere */
      continue;
    }
    ours = 1;
    /* the first fault on a copy reports it and releases it */
    int claimed = 0;
    uint64_t h = atomic_load(&g->hit);
    while (h != sn.seq && !claimed)
      claimed = atomic_compare_exchange_weak(&g->hit, &h, sn.seq);
    if (claimed && !report && !holding && addr >= sn.start && addr < sn.end &&
        !in_vendor(ip)) {
      report = 1;
      copy = sn.copy_seq;
    }
    if (!holding && trylock()) {
      if (atomic_load(&g->seq) == sn.seq && g->active)
        release(g);
      unlock();
    } else {
      /* the lock is busy (maybe with this very thread, interrupted): lift
       * the copy's pages here; a hit guard protects nothing, and the next
       * writer releases it */
      mprotect((void *)(uintptr_t)sn.lo, sn.hi - sn.lo, PROT_READ | PROT_WRITE);
    }
  }
  if (!ours) {
    if (read_only)
      ours = !mprotect((void *)(uintptr_t)page, page_size, PROT_READ);
    else if (lately_lifted(addr))
      /* taken before the protection went, handled after its guard went:
       * its pages are (being) lifted; lift this one now, not wait */
      ours = !mprotect((void *)(uintptr_t)page, page_size,
                       PROT_READ | PROT_WRITE);
    return ours;
  }
  if (report) {
    uint64_t frames[CL_MAX_FRAMES];
    frames[0] = ip + 1; /* the report looks up address - 1 */
    struct unwind u = {frames + 1, 0, CL_MAX_FRAMES - 1, ip, 0};
    /* bound when the shim started (cl_stack_init), before any page was
     * protected: a load here */
    __typeof__(cl_unwind.backtrace) backtrace =
        __atomic_load_n(&cl_unwind.backtrace, __ATOMIC_ACQUIRE);
    if (backtrace)
      backtrace(step, &u);
    /* Not async-signal-safe in general, like the unwinding above: both are
     * called only for the program's own synchronous access to a protected
     * page, never while this thread is inside the shim or the allocator. */
    uint32_t py = cl_pystack_capture();
    cl_hostguard_record(write ? "write" : "read", cl_next_seq(), addr, copy,
                        frames, 1 + u.n, py);
  }
  return 1;
}

/* ---- system calls (syscalls.c) -------------------------------------------- */
static int in_the_way(const struct guard *g, uint64_t lo, uint64_t hi,
                      int kernel_writes)
{
  return g->active && g->lo < hi && g->hi > lo &&
         (kernel_writes || !g->readonly);
}

int cl_hostguard_lift(uint64_t addr, uint64_t len, int kernel_writes)
{
  if (!len || holding || addr + len < addr)
    return 0; /* see on_fault: no waiting for ourselves */
  uint64_t lo = addr & ~(page_size - 1);
  uint64_t hi = (addr + len + page_size - 1) & ~(page_size - 1);
  if (hi <= atomic_load(&armed_lo) || lo >= atomic_load(&armed_hi))
    return 0;
  int token = 0, found = 0;
  wlock();
  for (int i = 0; i < MAX_GUARDS && !found; i++)
    found = in_the_way(&guards[i], lo, hi, kernel_writes);
  if (found) {
    for (int i = 0; i < MAX_LIFTS && !token; i++)
      if (!lifts[i].used) {
        lifts[i] = (struct lift){1, kernel_writes, lo, hi, births};
        token = i + 1;
      }
    if (token) { /* only the pages of copies: never anything else */
      for (int i = 0; i < MAX_GUARDS; i++)
        if (in_the_way(&guards[i], lo, hi, kernel_writes))
          reprotect(lo > guards[i].lo ? lo : guards[i].lo,
                    hi < guards[i].hi ? hi : guards[i].hi);
    } else { /* too many calls at once: these copies go unchecked */
      for (int i = 0; i < MAX_GUARDS; i++)
        if (in_the_way(&guards[i], lo, hi, kernel_writes))
          release(&guards[i]);
    }
  }
  unlock();
  return token;
}

/* The first byte of [g->lo, g->hi) among the first done bytes of iov, or
 * 0 when they do not reach the guard's pages. */
static uint64_t touched(const struct guard *g, const struct iovec *iov,
                        int iovcnt, uint64_t done)
{
  for (int i = 0; i < iovcnt && done; i++) {
    uint64_t a = (uint64_t)(uintptr_t)iov[i].iov_base;
    uint64_t n = iov[i].iov_len < done ? iov[i].iov_len : done;
    done -= n;
    if (n && a < g->hi && a + n > g->lo)
      return a > g->lo ? a : g->lo;
  }
  return 0;
}

void cl_hostguard_settle(int token, const struct iovec *iov, int iovcnt,
                         uint64_t done)
{
  if (token <= 0 || token > MAX_LIFTS)
    return;
  struct {
    uint64_t address, copy_seq;
  } hit[8];
  int nhit = 0;
  wlock();
  struct lift l = lifts[token - 1];
  lifts[token - 1].used = 0;
  for (int i = 0; i < MAX_GUARDS; i++) {
    struct guard *g = &guards[i];
    if (!g->active || g->hi <= l.lo || g->lo >= l.hi)
      continue;
    uint64_t at = g->birth <= l.births && (l.kernel_writes || !g->readonly)
                      ? touched(g, iov, iovcnt, done)
                      : 0;
    if (!at) { /* protected again */
      reprotect(l.lo > g->lo ? l.lo : g->lo, l.hi < g->hi ? l.hi : g->hi);
      continue;
    }
    if (nhit < (int)(sizeof hit / sizeof hit[0])) {
      hit[nhit].address = at;
      hit[nhit].copy_seq = g->copy_seq;
      nhit++;
    }
    release(g);
  }
  unlock();
  if (!nhit)
    return;
  uint64_t frames[CL_MAX_FRAMES];
  int n = cl_stack_capture(frames, CL_MAX_FRAMES);
  uint32_t py = cl_pystack_capture();
  for (int i = 0; i < nhit; i++)
    cl_hostguard_record(l.kernel_writes ? "write" : "read", cl_next_seq(),
                        hit[i].address, hit[i].copy_seq, frames, n, py);
}

void cl_hostguard_atfork_prepare(void) { lock(); }
void cl_hostguard_atfork_parent(void) { unlock(); }
void cl_hostguard_atfork_child(void)
{
  /* the system calls of the parent's other threads are not the child's */
  for (int i = 0; i < MAX_LIFTS; i++)
    lifts[i].used = 0;
  /* nor are the copies in flight: the device writes or reads the parent's
   * pages, and a page the child touches is its own copy (or not mapped):
   * nothing to check, and nothing for a later synchronization of the
   * parent's streams to lift */
  for (int i = 0; i < MAX_GUARDS; i++)
    if (guards[i].active)
      release(&guards[i]);
  unlock();
}

void cl_hostguard_init(void)
{
  const char *v = getenv("CUDALENS_HOSTGUARD");
  if (v && !strcmp(v, "0"))
    return;
  page_size = (uint64_t)sysconf(_SC_PAGESIZE);
  if (cl_sigwrap_install(on_fault) == 0)
    enabled = 1;
}

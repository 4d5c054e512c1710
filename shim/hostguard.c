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
 * this off; CUDALENS_HOSTGUARD=lazy lifts later (see the end).
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
 * reported, like a fault, and released; the others are protected again.
 *
 * What it costs (issue 25): the shim remembers the protection it gave each
 * page (protmap.c), so a copy whose pages are already protected at the level
 * it needs (the copies of one buffer between two synchronizations) costs no
 * system call, and a synchronization lifts the pages of all the work it
 * covers at once, one mprotect per stretch whose protection changes.  The
 * protection at every moment is the one the guards call for, as before:
 * only the calls that would not change it are left out.
 *
 * CUDALENS_HOSTGUARD=lazy (opt-in, issue 25): a synchronization marks the
 * guards it covers complete and leaves their pages protected.  A host
 * access to a page of a complete guard faults and lifts it without a
 * report (the copy is complete); a wrapped system call lifts the complete
 * guards in its way for good, without a report; a new guard takes over the
 * complete guards whose pages it covers (forget_complete: no mprotect when
 * it needs the same protection, as the copies of one buffer do, one
 * synchronization after another); a free releases them without the
 * free-before-sync finding; fork releases them in the child as it does
 * every guard; when the slots run out the oldest complete guard goes.  The
 * findings are the default's (tests/hostsync/lazy.test).  It is not the
 * default because it changes what correct programs see: until the host
 * touches them, pages whose copy is complete stay protected, so a way into
 * the kernel that syscalls.c does not wrap (syscall(2), io_uring, ioctl,
 * splice, RDMA registration through get_user_pages, process_vm_readv from
 * another process) fails with EFAULT on memory the program may use; the
 * default lifts the pages at the synchronization, so that only a program
 * touching memory still in flight can see EFAULT. */
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "cl_unwind.h"
#include "cudalens/semantics.h"
#include "hostguard.h"
#include "kparams.h"
#include "objects.h"
#include "protmap.h"
#include "pyframes.h"
#include "ring.h"
#include "shim.h"
#include "sigwrap.h"
#include "stack.h"

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
  int complete;           /* lazy mode: its synchronization came, its pages
                           * stay protected until touched (lifted silently) */
  int readonly;           /* host-to-device source: writes fault */
  uint64_t lo, hi;        /* protected pages */
  uint64_t start, end;    /* the copy's host bytes */
  uint64_t copy_seq, stream, tid;
  int32_t device;
  uint64_t birth;         /* order of creation */
};
static struct guard guards[MAX_GUARDS];
static int guards_top; /* slots at and above are inactive (lock held) */
static atomic_flag guard_lock = ATOMIC_FLAG_INIT;
static __thread int holding; /* this thread holds guard_lock */
static uint64_t page_size;
static int enabled;
static int lazy; /* CUDALENS_HOSTGUARD=lazy: see the top comment */
static int stepping; /* accesses beside the guarded bytes can be stepped over */
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
_Atomic unsigned cl_hostguard_armed CL_STARTUP_DATA;
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
 * guards ([API] cudaStreamCreateWithFlags, ops.def STREAM_LEGACY_NONBLOCKING).
 * Streams not seen created count as blocking (never a false report).
 * Written under the lock. */
#define MAX_NONBLOCKING 1024
static uint64_t nonblocking[MAX_NONBLOCKING];
static int nonblocking_top; /* slots at and above are unused */

static int is_nonblocking(uint64_t stream)
{
  if (stream == 0 || stream == CL_STREAM_PER_THREAD)
    return 0;
  for (int i = 0; i < nonblocking_top; i++)
    if (nonblocking[i] == stream)
      return 1;
  return 0;
}

/* events: the stream and order of their latest record */
#define MAX_EVENTS 1024
static struct {
  uint64_t event, stream, tid, seq;
} events[MAX_EVENTS];

/* Pages a single step lifted (see step_over), to be protected again by
 * whoever holds the lock next: the SIGTRAP handler that ends the step
 * queues them here and only tries the lock. */
#define MAX_PENDING 64
static _Atomic uint64_t pending[MAX_PENDING]; /* page address + 1, 0: free */
static _Atomic unsigned npending;
static void reprotect(uint64_t lo, uint64_t hi);

static void pending_drain(void) /* lock held */
{
  if (!atomic_load(&npending))
    return;
  for (int i = 0; i < MAX_PENDING; i++) {
    uint64_t p = atomic_exchange(&pending[i], 0);
    if (p) {
      atomic_fetch_sub(&npending, 1);
      reprotect(p - 1, p - 1 + page_size);
    }
  }
}

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
/* Pages queued while the lock was held are protected again before it is
 * let go, and a queue that filled after that is taken care of by whoever
 * queued it or, if the lock was busy then, here. */
static void unlock(void)
{
  for (;;) {
    pending_drain();
    holding = 0;
    atomic_flag_clear_explicit(&guard_lock, memory_order_release);
    if (!atomic_load(&npending) || !trylock())
      return;
  }
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
static struct cl_span vendor[MAX_VENDOR];
static size_t nvendor;

static int add_vendor(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  (void)arg;
  const char *base = cl_object_name(info);
  if (!strncmp(base, "libcuda.", 8) || !strncmp(base, "libcudart", 9) ||
      !strncmp(base, "libcupti", 8))
    cl_object_exec(info, vendor, &nvendor, MAX_VENDOR);
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

/* the protection the shim gave each page: protmap.c (lock held) */
#define MAX_DIRTY 64

/* Protection changed by a handler without the lock (a fault's lift, a
 * step): those pages' protection is unknown to protmap.c until a writer
 * sets it.  Queued after the handler's own mprotect; the lock's holder
 * marks them (dirty_drain).  A full queue forgets the whole table. */
static _Atomic int dirty_state[MAX_DIRTY]; /* 0 free, 1 writing, 2 queued */
static uint64_t dirty_lo[MAX_DIRTY], dirty_hi[MAX_DIRTY];
static _Atomic int dirty_overflow;
static _Atomic unsigned ndirty; /* queued or being queued */

static int handler_mprotect(uint64_t lo, uint64_t hi, int prot)
{
  int r = mprotect((void *)(uintptr_t)lo, hi - lo, prot);
  atomic_fetch_add(&ndirty, 1);
  for (int i = 0; i < MAX_DIRTY; i++) {
    int none = 0;
    if (atomic_compare_exchange_strong(&dirty_state[i], &none, 1)) {
      dirty_lo[i] = lo, dirty_hi[i] = hi;
      atomic_store_explicit(&dirty_state[i], 2, memory_order_release);
      return r;
    }
  }
  atomic_store(&dirty_overflow, 1);
  atomic_fetch_sub(&ndirty, 1);
  return r;
}

static void dirty_drain(void) /* lock held */
{
  if (!atomic_load(&ndirty) && !atomic_load(&dirty_overflow))
    return;
  if (atomic_exchange(&dirty_overflow, 0))
    cl_protmap_forget();
  for (int i = 0; i < MAX_DIRTY; i++)
    if (atomic_load_explicit(&dirty_state[i], memory_order_acquire) == 2) {
      cl_protmap_set(dirty_lo[i], dirty_hi[i], CL_PROT_UNKNOWN);
      atomic_store(&dirty_state[i], 0);
      atomic_fetch_sub(&ndirty, 1);
    }
}

/* nothing guarded, no system call lifted: every page the shim protected
 * has been made read-write by the change that ended its guard */
static void applied_idle(void)
{
  for (int i = 0; i < MAX_LIFTS; i++)
    if (lifts[i].used)
      return;
  cl_protmap_relearn();
}

/* inside the fault or trap handler: no sigaction calls from there */
static __thread int in_handler;

static int protecting(struct guard *g)
{
  return g->active && !is_hit(g);
}

static void reprotect(uint64_t lo, uint64_t hi)
{
  uint64_t cut[MAX_CUTS];
  int ncut = 0;
  atomic_fetch_add(&prot_changes, 1);
  dirty_drain();
  cut[ncut++] = lo;
  cut[ncut++] = hi;
  for (int i = 0; i < guards_top; i++)
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
  /* runs of stretches of one protection: one mprotect each, made only
   * when some page of the run has another protection now */
  uint64_t ra = lo, rb = lo;
  int rprot = PROT_READ | PROT_WRITE, rneed = 0, reclaimed = in_handler;
  for (int k = 0; k < ncut; k++) {
    uint64_t a = k + 1 < ncut ? cut[k] : hi, b = k + 1 < ncut ? cut[k + 1] : hi;
    int prot = PROT_READ | PROT_WRITE;
    if (a < b) {
      for (int i = 0; i < guards_top; i++) {
        struct guard *g = &guards[i];
        if (protecting(g) && a >= g->lo && a < g->hi)
          prot = g->readonly && prot != PROT_NONE ? PROT_READ : PROT_NONE;
      }
      for (int i = 0; i < MAX_LIFTS && prot != (PROT_READ | PROT_WRITE); i++)
        if (lifts[i].used && a >= lifts[i].lo && a < lifts[i].hi)
          prot = lifts[i].kernel_writes ? PROT_READ | PROT_WRITE : PROT_READ;
      if (prot == rprot && a == rb) { /* the run goes on */
        rneed |= !cl_protmap_is(a, b, prot);
        rb = b;
        continue;
      }
    } else if (k + 1 < ncut) {
      continue; /* an empty stretch */
    }
    if (rneed) { /* the run ends: [ra, rb) */
      if (rprot != (PROT_READ | PROT_WRITE) && !reclaimed) {
        /* a fault must reach dispatch(), not the program */
        cl_sigwrap_reclaim();
        reclaimed = 1;
      }
      int r = mprotect((void *)(uintptr_t)ra, rb - ra, rprot);
      cl_protmap_set(ra, rb, r ? CL_PROT_UNKNOWN : rprot);
    }
    ra = a, rb = b, rprot = prot;
    rneed = a < b && !cl_protmap_is(a, b, prot);
  }
  atomic_fetch_add(&prot_changes, 1);
}

/* n guards went inactive: the slots in use, the armed span, the map */
static void disarm(unsigned n)
{
  while (guards_top && !guards[guards_top - 1].active)
    guards_top--;
  if (atomic_fetch_sub(&cl_hostguard_armed, n) == n) {
    atomic_store(&armed_lo, UINT64_MAX);
    atomic_store(&armed_hi, 0);
    applied_idle();
  }
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
  disarm(1);
}

/* Release the guards a synchronization (or a free) covers all at once: the
 * pages of each stretch their ranges make together change protection in
 * one mprotect, not once per guard (issue 25: a copy loop synchronized
 * every few copies lifts each buffer once). */
static struct guard *batch[MAX_GUARDS];
static void release_all(struct guard **gs, int n)
{
  struct {
    uint64_t lo, hi;
    struct recent *r;
  } span[MAX_GUARDS];
  int nspan = 0;
  if (n == 1) {
    release(gs[0]);
    return;
  }
  for (int i = 0; i < n; i++) { /* sorted by lo, then merged */
    int j = nspan++;
    for (; j > 0 && span[j - 1].lo > gs[i]->lo; j--)
      span[j] = span[j - 1];
    span[j].lo = gs[i]->lo, span[j].hi = gs[i]->hi;
  }
  int m = 0;
  for (int i = 0; i < nspan; i++)
    if (m && span[i].lo <= span[m - 1].hi) {
      if (span[i].hi > span[m - 1].hi)
        span[m - 1].hi = span[i].hi;
    } else {
      span[m++] = span[i];
    }
  for (int i = 0; i < m; i++)
    span[i].r = recent_push(span[i].lo, span[i].hi);
  for (int i = 0; i < n; i++) {
    begin_change(gs[i]);
    gs[i]->active = 0;
    end_change(gs[i]);
  }
  for (int i = 0; i < m; i++)
    reprotect(span[i].lo, span[i].hi);
  uint64_t t = cl_monotonic_ns();
  for (int i = 0; i < m; i++)
    atomic_store(&span[i].r->lifted_ns, t);
  disarm((unsigned)n);
}

/* Lazy mode: the complete guards whose pages lie inside [lo, hi), which
 * the new guard KEEP now protects, go (lock held).  Where the new guard
 * needs the protection they left (the copies of one buffer, one
 * synchronization after another), no page changes and no mprotect is
 * made; where it needs less (a host-to-device source after a
 * device-to-host destination), the pages become read-only. */
static void forget_complete(uint64_t lo, uint64_t hi, const struct guard *keep)
{
  int n = 0, quiet = 0;
  for (int i = 0; i < guards_top; i++) {
    struct guard *g = &guards[i];
    if (g == keep || !g->active || !g->complete || g->lo < lo || g->hi > hi)
      continue;
    if (!keep->readonly || g->readonly) {
      /* keep protects its pages at least as strictly: nothing changes
       * there, and a fault on them now is keep's */
      begin_change(g);
      g->active = 0;
      g->complete = 0;
      end_change(g);
      quiet++;
    } else {
      batch[n++] = g; /* no access -> read-only */
    }
  }
  if (quiet)
    disarm((unsigned)quiet);
  if (n)
    release_all(batch, n);
}

/* The guards a fault claimed while the lock was busy (their pages were
 * lifted by the handler itself) are released by the next writer. */
static void wlock(void)
{
  lock();
  for (int i = 0; i < guards_top; i++)
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

int cl_hostguard_capturing(void)
{
  return atomic_load(&capturing) > 0;
}

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
                        uint64_t end, int merge, int kind)
{
  /* pinned and managed memory: the pages the bytes touch, whole (what else
   * lies there is CUDA's memory too, and accesses to it are stepped over);
   * registered memory: only the pages inside (the rest of the page is the
   * program's own, system calls on it included) */
  int partial = stepping && kind != CL_MEMKIND_REGISTERED;
  uint64_t lo = partial ? start & ~(page_size - 1)
                        : (start + page_size - 1) & ~(page_size - 1);
  uint64_t hi = partial ? (end + page_size - 1) & ~(page_size - 1)
                        : end & ~(page_size - 1);
  if (hi <= lo)
    return; /* no whole page inside */
  wlock();
  if (!nvendor)
    dl_iterate_phdr(add_vendor, NULL);
  struct guard *g = NULL;
  for (int i = 0; merge && i < guards_top && !g; i++) {
    struct guard *m = &guards[i];
    if (m->active && !m->complete && m->lo == lo && m->hi == hi &&
        m->device == device &&
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
  if (!g && lazy) { /* no slot: the oldest complete guard goes */
    struct guard *old = NULL;
    for (int i = 0; i < guards_top; i++)
      if (guards[i].active && guards[i].complete &&
          (!old || guards[i].birth < old->birth))
        old = &guards[i];
    if (old) {
      release(old);
      g = old;
    }
  }
  if (g) {
    if (g - guards >= guards_top)
      guards_top = (int)(g - guards) + 1;
    begin_change(g);
    g->active = 1;
    g->complete = 0;
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
    dirty_drain();
    if (!cl_protmap_covers(lo, hi, readonly)) /* else protected already */
      reprotect(lo, hi);
    if (lazy)
      forget_complete(lo, hi, g);
  }
  unlock();
  if (!g)
    CL_LOG(CL_LOG_INFO, "more than %d copies and kernels in flight: not all "
                        "are checked", MAX_GUARDS);
}

/* KIND: cl_allocmap_kind(host, bytes), or -1 when not read yet */
void cl_hostguard_copy_kind(uint64_t seq, uint64_t stream, uint64_t tid,
                            int32_t device, int dtoh, uint64_t host,
                            uint64_t bytes, int kind)
{
  if (!enabled || !bytes || atomic_load(&capturing) > 0)
    return;
  if (kind < 0)
    kind = cl_allocmap_kind(host, bytes);
  if (kind != CL_MEMKIND_PINNED && kind != CL_MEMKIND_REGISTERED &&
      kind != CL_MEMKIND_MANAGED)
    return;
  guard_pages(seq, stream, tid, device, !dtoh, host, host + bytes, 0, kind);
}

void cl_hostguard_copy(uint64_t seq, uint64_t stream, uint64_t tid,
                       int32_t device, int dtoh, uint64_t host, uint64_t bytes)
{
  cl_hostguard_copy_kind(seq, stream, tid, device, dtoh, host, bytes, -1);
}

/* A kernel whose arguments point into managed memory or pinned memory the
 * device can reach (mapped: on a unified address space every pinned
 * allocation is): the whole allocation is guarded until the kernel's
 * synchronization, read-only where every argument into it is a pointer to
 * const (const_params: bit i for parameter i). */
struct reach {
  uint64_t start, end;
  int readonly;
};

/* the N allocations of REACH guarded for a kernel; none left */
static void guard_reach(uint64_t seq, uint64_t stream, uint64_t tid,
                        int32_t device, const struct reach *reach, int *n)
{
  for (int k = 0; k < *n; k++)
    guard_pages(seq, stream, tid, device, reach[k].readonly, reach[k].start,
                reach[k].end, 1,
                cl_allocmap_kind(reach[k].start, reach[k].end - reach[k].start));
  *n = 0;
}

void cl_hostguard_kernel(uint64_t seq, uint64_t stream, uint64_t tid,
                         int32_t device, const struct cl_karg *kargs,
                         int nkargs, uint64_t const_params)
{
  if (!enabled || !nkargs || atomic_load(&capturing) > 0)
    return;
  struct reach reach[CL_MAX_KARGS];
  int n = 0;
  for (int i = 0; i < nkargs; i++) {
    uint64_t start, end;
    if (n == CL_MAX_KARGS) /* (a launch of more allocations: guarded so far) */
      guard_reach(seq, stream, tid, device, reach, &n);
    /* a word that may be stale (an aggregate not fully initialized,
     * kparams.c) guards nothing: the kernel may never touch its memory */
    if (kargs[i].device_only || kargs[i].uninit ||
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
  guard_reach(seq, stream, tid, device, reach, &n);
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
      if (i >= nonblocking_top)
        nonblocking_top = i + 1;
      break;
    }
  unlock();
}

/* STREAM's class for the coverage rule (ops.def section 3b): 0 is the
 * legacy default stream; a stream not known non-blocking may be blocking
 * (UNKNOWN: the rule takes it as blocking, never a false report) */
static enum cl_stream_class stream_class(uint64_t stream)
{
  if (stream == 0)
    return CL_SC_LEGACY;
  if (stream == CL_STREAM_PER_THREAD)
    return CL_SC_PER_THREAD;
  return is_nonblocking(stream) ? CL_SC_NONBLOCKING : CL_SC_UNKNOWN;
}

/* Does a synchronization of KIND of STREAM (of thread TID, for the
 * per-thread stream) cover g's work?  The one rule, cl_sync_covers: its
 * own stream's work, and through the legacy default stream the work of
 * the other streams of the device that are not non-blocking.  SAME_DEVICE:
 * g is of the device synchronized. */
static int sync_covers_guard(const struct guard *g, enum cl_sync_kind kind,
                             uint64_t stream, uint64_t tid, int same_device)
{
  struct cl_sync s = {kind, stream_class(stream)};
  struct cl_prior p = {stream_class(g->stream), same_stream(g, stream, tid),
                       same_device};
  return cl_sync_covers(&s, &p) != CL_COVER_NONE;
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

/* Stream waits (cudaStreamWaitEvent: "makes all future work submitted to
 * stream wait for all work captured in event", ops.def
 * STREAM_WAIT_EVENT): STREAM's work enqueued after seq AT waits for FROM's
 * work before seq UPTO (the event's record).  The latest MAX_WAITS waits
 * whose event's record was seen; written under the lock. */
#define MAX_WAITS 1024
static struct wait {
  uint64_t stream, tid, from, from_tid, upto, at;
} waits[MAX_WAITS];
static unsigned waits_head;

/* g's work is done once the work STREAM had before seq LIMIT is (what an
 * event recorded there at LIMIT would capture, the rule's EVENT rows): g's
 * is that stream's, or that of a stream it waited for before LIMIT
 * (through DEPTH waits at most) */
static int covers_upto(const struct guard *g, int32_t device, uint64_t stream,
                       uint64_t tid, uint64_t limit, int depth)
{
  if (g->copy_seq < limit &&
      sync_covers_guard(g, CL_SYNC_EVENT, stream, tid,
                        device >= 0 && g->device == device))
    return 1;
  for (unsigned i = 0; depth > 0 && i < MAX_WAITS && i < waits_head; i++) {
    const struct wait *w = &waits[i];
    if (w->stream == stream && w->at < limit &&
        (stream != CL_STREAM_PER_THREAD || w->tid == tid) &&
        covers_upto(g, device, w->from, w->from_tid, w->upto, depth - 1))
      return 1;
  }
  return 0;
}

/* Lazy mode: the work of the guards a synchronization covers is done, but
 * their pages stay protected (no mprotect): a host access to them is lifted
 * without a report (on_fault), a wrapped system call's buffers likewise
 * (cl_hostguard_lift), the next copy of the same pages takes them over
 * (forget_complete), a free forgets them (cl_hostguard_free). */
static void complete_all(struct guard **gs, int n)
{
  for (int i = 0; i < n; i++) {
    if (is_hit(gs[i])) { /* a fault lifted it meanwhile: it goes */
      release(gs[i]);
      continue;
    }
    begin_change(gs[i]);
    gs[i]->complete = 1;
    end_change(gs[i]);
  }
}

static void add_wait(uint64_t stream, uint64_t tid, uint64_t event,
                     uint64_t seq)
{
  for (int e = 0; e < MAX_EVENTS && event; e++)
    if (events[e].event == event) {
      waits[waits_head++ % MAX_WAITS] =
          (struct wait){stream, tid, events[e].stream, events[e].tid,
                        events[e].seq, seq};
      if (waits_head == 2 * MAX_WAITS)
        waits_head = MAX_WAITS; /* stays full, never wraps to 0 */
      return;
    }
}

void cl_hostguard_sync(enum cl_op op, int32_t device, uint64_t stream,
                       uint64_t tid, uint64_t event, uint64_t seq)
{
  enum cl_host host = host_knows(op);
  if (!enabled ||
      (host == CL_HOST_NONE && op != CL_OP_EVENT_RECORD &&
       op != CL_OP_HOST_FUNC && op != CL_OP_STREAM_WAIT_EVENT))
    return;
  /* with nothing guarded, a synchronization (or a host function) has
   * nothing to lift, and a wait covers nothing that exists now: nothing
   * guarded later is older than it or its event (the record's own entry
   * is kept: a stale one covers only older, released work) */
  if (op != CL_OP_EVENT_RECORD && !atomic_load(&cl_hostguard_armed))
    return;
  wlock();
  if (op == CL_OP_STREAM_WAIT_EVENT) {
    add_wait(stream, tid, event, seq);
    unlock();
    return;
  }
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
  int n = 0;
  for (int i = 0; i < guards_top; i++) {
    struct guard *g = &guards[i];
    if (!g->active || g->complete)
      continue;
    int covered = 0;
    if (op == CL_OP_HOST_FUNC) {
      /* not a synchronization, but a host function runs once the work
       * before it in its stream is done (and what that work waited for),
       * and may hand the memory to any thread (NVIDIA's simpleCallback;
       * XLA returns its staging buffer to its pool so, from a stream that
       * waited for the copy's): what came before it counts as
       * synchronized */
      covered = covers_upto(g, device, stream, tid, seq, 3);
    } else if (host == CL_HOST_DEVICE) {
      covered = sync_covers_guard(g, CL_SYNC_DEVICE, stream, tid,
                                  device < 0 || g->device == device);
    } else if (host == CL_HOST_STREAM) {
      /* the legacy default stream's: blocking streams too, streams not
       * seen created included, rather than risk a false report */
      covered = sync_covers_guard(g, CL_SYNC_STREAM, stream, tid,
                                  g->device == device) ||
                covers_upto(g, device, stream, tid, UINT64_MAX, 3);
    } else if (host == CL_HOST_EVENT) {
      /* the work its stream had when the event was recorded */
      for (int e = 0; e < MAX_EVENTS; e++)
        if (events[e].event == event && event)
          covered = covers_upto(g, device, events[e].stream, events[e].tid,
                                events[e].seq, 3);
    }
    if (covered)
      batch[n++] = g;
  }
  if (n && lazy)
    complete_all(batch, n);
  else if (n)
    release_all(batch, n);
  unlock();
}

/* A free of pinned memory with copies still in flight: the protection goes
 * first (the driver may touch the pages); returns the copy's seq or 0. */
uint64_t cl_hostguard_free(uint64_t addr)
{
  uint64_t copy = 0, lo, hi;
  if (!enabled || !cl_allocmap_find(addr, &lo, &hi))
    return 0;
  int n = 0;
  wlock();
  for (int i = 0; i < guards_top; i++) {
    struct guard *g = &guards[i];
    if (g->active && g->start < hi && g->end > lo) {
      if (!copy && !g->complete) /* a complete guard's work is done */
        copy = g->copy_seq;
      batch[n++] = g;
    }
  }
  if (n)
    release_all(batch, n);
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
  int active, readonly, complete;
};

static int guard_read(struct guard *g, struct snap *o)
{
  for (int tries = 0; tries < 64; tries++) {
    uint64_t s1 = atomic_load(&g->seq);
    if (s1 & 1)
      return 0;
    o->active = __atomic_load_n(&g->active, __ATOMIC_RELAXED);
    o->readonly = __atomic_load_n(&g->readonly, __ATOMIC_RELAXED);
    o->complete = __atomic_load_n(&g->complete, __ATOMIC_RELAXED);
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

/* ---- stepping over accesses beside the guarded bytes ----------------------
 * A guard of pinned or managed memory protects the whole pages its bytes
 * touch, and what else lies on those pages (a neighbouring allocation, the
 * rest of a small buffer's page) is not in flight.  An access there is let
 * through exactly as the program made it: the page is made accessible, the
 * faulting instruction runs once more under the trap flag (EFLAGS.TF), and
 * the SIGTRAP that follows it (si_code TRAP_TRACE) protects the page again
 * and puts the program's own trap flag and SIGTRAP mask back.  The program
 * sees nothing: its own SIGTRAP handler gets only the traps that are its
 * (its own trap flag, int3, kill), and a SIGTRAP it blocked is unblocked
 * for the one instruction only (a trap with SIGTRAP blocked kills).  While
 * the page is open other threads' accesses to it go unchecked; a step the
 * program leaves (a signal handler that jumps out) is closed at this
 * thread's next fault.  x86-64 only; elsewhere only whole pages inside the
 * bytes are protected. */
#if defined(__x86_64__)
#define EFLAGS_TF 0x100
#define STEP_PAGES 4
#define STEP_OUTER 4
struct step {
  int tf, blocked;         /* the program's trap flag and SIGTRAP mask */
  uint64_t ip;
};
static __thread struct {
  int active, n;
  struct step s;
  uint64_t pages[STEP_PAGES];
  /* steps a signal handler interrupted (their pages closed): the trap
   * flag in their saved context is the shim's */
  struct step outer[STEP_OUTER];
  int nouter;
} single;

static void pending_push(uint64_t page)
{
  for (int i = 0; i < MAX_PENDING; i++) {
    uint64_t none = 0;
    if (atomic_compare_exchange_strong(&pending[i], &none, page + 1)) {
      atomic_fetch_add(&npending, 1);
      return;
    }
  }
  /* full (64 steps at once): protected at the next change of its guards */
}

/* the step's pages go back to their protection (now, or by the lock's
 * holder) */
static void step_close(void)
{
  for (int i = 0; i < single.n; i++)
    pending_push(single.pages[i]);
  single.active = 0;
  single.n = 0;
  if (!holding && trylock())
    unlock(); /* drains */
}

static int step_over(ucontext_t *ctx, uint64_t page, uint64_t ip)
{
  if (single.active && single.s.ip != ip) {
    /* a signal handler's access, inside a step: the step waits */
    if (single.nouter < STEP_OUTER)
      single.outer[single.nouter++] = single.s;
    step_close();
  }
  if (!single.active) {
    struct step st = {(ctx->uc_mcontext.gregs[REG_EFL] & EFLAGS_TF) != 0,
                      sigismember(&ctx->uc_sigmask, SIGTRAP) == 1, ip};
    if (single.nouter && single.outer[single.nouter - 1].ip == ip)
      st = single.outer[--single.nouter]; /* that step, again */
    single.s = st;
    single.active = 1;
  }
  if (single.n == STEP_PAGES)
    return 0;
  atomic_fetch_add(&prot_changes, 1);
  if (handler_mprotect(page, page + page_size, PROT_READ | PROT_WRITE))
    return 0;
  single.pages[single.n++] = page;
  ctx->uc_mcontext.gregs[REG_EFL] |= EFLAGS_TF;
  sigdelset(&ctx->uc_sigmask, SIGTRAP);
  return 1;
}

/* SIGTRAP: the end of a step, or the program's own */
static int on_trap_in(int sig, siginfo_t *si, void *uc)
{
  struct step st;
  if (sig != SIGTRAP)
    return 0;
  if (single.active) {
    st = single.s;
    step_close();
  } else if (single.nouter && si->si_code == TRAP_TRACE) {
    /* a step a handler interrupted, whose instruction then ran without
     * faulting again */
    st = single.outer[--single.nouter];
  } else {
    return 0;
  }
  ucontext_t *ctx = uc;
  if (!st.tf)
    ctx->uc_mcontext.gregs[REG_EFL] &= ~EFLAGS_TF;
  if (st.blocked)
    sigaddset(&ctx->uc_sigmask, SIGTRAP);
  /* the trap after the instruction is the program's when it had the flag
   * set itself; any other SIGTRAP (kill) came before the instruction ran,
   * which faults and is stepped again */
  return si->si_code == TRAP_TRACE && !st.tf;
}

static int on_trap(int sig, siginfo_t *si, void *uc)
{
  in_handler++;
  int r = on_trap_in(sig, si, uc);
  in_handler--;
  return r;
}
#else
static int step_over(ucontext_t *ctx, uint64_t page, uint64_t ip)
{
  (void)ctx, (void)page, (void)ip;
  return 0;
}
#endif

/* The rule: a fault on a page the shim protects, or protected lately, is
 * the shim's; the page is made accessible and the access runs again.  Only
 * a fault elsewhere goes to the program's handler or the default action.
 * No waiting here: the handler may run on any thread at any moment,
 * including inside this thread's own change of the guards (holding), and
 * while another thread is inside mprotect for the same pages.  The guards
 * are read through their sequence counts; the lock is only tried. */
static int on_fault_in(int sig, siginfo_t *si, void *uc)
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
  int ours = 0, read_only = 0, report = 0, beside = 0;
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
    if (!sn.complete && (addr < sn.start || addr >= sn.end) &&
        atomic_load(&g->hit) != sn.seq) {
      /* its page, not its bytes (another allocation or variable on a
       * page it shares): stepped over below, the guard kept */
      beside = 1;
      continue;
    }
    ours = 1;
    /* the first fault on a copy reports it and releases it */
    int claimed = 0;
    uint64_t h = atomic_load(&g->hit);
    while (h != sn.seq && !claimed)
      claimed = atomic_compare_exchange_weak(&g->hit, &h, sn.seq);
    /* a complete guard's work is done (lazy mode): lifted, not reported */
    if (claimed && !report && !sn.complete && !holding && addr >= sn.start &&
        addr < sn.end && !cl_span_has(vendor, nvendor, ip)) {
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
      handler_mprotect(sn.lo, sn.hi, PROT_READ | PROT_WRITE);
    }
  }
  if (!ours && beside && step_over((ucontext_t *)uc, page, ip))
    return 1;
  if (!ours) {
    if (read_only)
      ours = !handler_mprotect(page, page + page_size, PROT_READ);
    else if (lately_lifted(addr))
      /* taken before the protection went, handled after its guard went:
       * its pages are (being) lifted; lift this one now, not wait */
      ours = !handler_mprotect(page, page + page_size, PROT_READ | PROT_WRITE);
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

/* the handlers, marked as such for reprotect (no sigaction from there) */
static int on_fault(int sig, siginfo_t *si, void *uc)
{
  in_handler++;
  int r = on_fault_in(sig, si, uc);
  in_handler--;
  return r;
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
  int token = 0, found = 0, ncomplete = 0;
  wlock();
  /* lazy mode: complete guards in the way are lifted for good, silently
   * (their work is done: the call may use the pages as it likes) */
  for (int i = 0; lazy && i < guards_top; i++)
    if (guards[i].complete && in_the_way(&guards[i], lo, hi, kernel_writes))
      batch[ncomplete++] = &guards[i];
  if (ncomplete)
    release_all(batch, ncomplete);
  for (int i = 0; i < guards_top && !found; i++)
    found = in_the_way(&guards[i], lo, hi, kernel_writes);
  if (found) {
    for (int i = 0; i < MAX_LIFTS && !token; i++)
      if (!lifts[i].used) {
        lifts[i] = (struct lift){1, kernel_writes, lo, hi, births};
        token = i + 1;
      }
    if (token) { /* only the pages of copies: never anything else */
      for (int i = 0; i < guards_top; i++)
        if (in_the_way(&guards[i], lo, hi, kernel_writes))
          reprotect(lo > guards[i].lo ? lo : guards[i].lo,
                    hi < guards[i].hi ? hi : guards[i].hi);
    } else { /* too many calls at once: these copies go unchecked */
      for (int i = 0; i < guards_top; i++)
        if (in_the_way(&guards[i], lo, hi, kernel_writes))
          release(&guards[i]);
    }
  }
  unlock();
  return token;
}

/* The first byte of the guard's bytes on its pages ([start, end) within
 * [lo, hi)) among the first done bytes of iov, or 0 when they do not reach
 * them (a call that filled a neighbour on a shared page touched nothing in
 * flight). */
static uint64_t touched(const struct guard *g, const struct iovec *iov,
                        int iovcnt, uint64_t done)
{
  uint64_t lo = g->start > g->lo ? g->start : g->lo;
  uint64_t hi = g->end < g->hi ? g->end : g->hi;
  for (int i = 0; i < iovcnt && done; i++) {
    uint64_t a = (uint64_t)(uintptr_t)iov[i].iov_base;
    uint64_t n = iov[i].iov_len < done ? iov[i].iov_len : done;
    done -= n;
    if (n && a < hi && a + n > lo)
      return a > lo ? a : lo;
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
  for (int i = 0; i < guards_top; i++) {
    struct guard *g = &guards[i];
    if (!g->active || g->hi <= l.lo || g->lo >= l.hi)
      continue;
    if (g->complete) { /* completed during the call (lazy): lifted */
      if (l.kernel_writes || !g->readonly)
        release(g);
      continue;
    }
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
  for (int i = 0; i < guards_top; i++)
    if (guards[i].active)
      release(&guards[i]);
  unlock();
}

void cl_hostguard_init(void)
{
  const char *v = getenv("CUDALENS_HOSTGUARD");
  if (v && !strcmp(v, "0"))
    return;
  lazy = v && !strcmp(v, "lazy");
  page_size = (uint64_t)sysconf(_SC_PAGESIZE);
  if (cl_sigwrap_install(on_fault) == 0)
    enabled = 1;
#if defined(__x86_64__)
  v = getenv("CUDALENS_HOSTGUARD_PARTIAL");
  if (enabled && !(v && !strcmp(v, "0")) && cl_sigwrap_install_trap(on_trap) == 0)
    stepping = 1;
#endif
}

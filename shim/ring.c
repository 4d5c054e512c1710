/* ring.c - per-thread record rings between the application's threads and the
 * writer thread.  Each thread that produces records owns one ring (single
 * producer); the writer drains them all (single consumer).  A full ring makes
 * the producer wait for the writer (CUDALENS_OVERFLOW=block, the default),
 * counting the waits and their length, or drops the record and counts it
 * (drop); never silently, nor when a thread's ring cannot be allocated.
 *
 * A process the shim did not see start (a raw clone or clone3 without
 * CLONE_VM: no fork handler ran, issue 24 defect 5) has a copy of its
 * parent's rings and writer state but no writer: it says so in one line
 * and records nothing (never waits for a writer that is not there).  The
 * kernel tells: a page advised MADV_WIPEONFORK reads 0 in such a child;
 * fork()'s handler marks it again in the children the shim sees. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"
#include "shim.h"
#include "writer.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cl_ring *rings;
static pthread_key_t ring_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread struct cl_ring *my_ring;
__thread uint32_t cl_tid;

uint32_t cl_gettid_first(void)
{
  if (!cl_tid)
    cl_tid = (uint32_t)syscall(SYS_gettid);
  return cl_tid;
}

static void ring_thread_exit(void *p)
{
  struct cl_ring *r = p;
  my_ring = NULL; /* the writer frees it once drained */
  atomic_store_explicit(&r->held, UINT64_MAX, memory_order_release);
  atomic_store_explicit(&r->dead, 1, memory_order_release);
  cl_writer_wake();
}

static void make_key(void) { pthread_key_create(&ring_key, ring_thread_exit); }

static struct cl_ring *ring_new(void)
{
  unsigned cap = cl_cfg.buffer_records;
  struct cl_ring *r = calloc(1, sizeof *r + cap * sizeof(struct cl_record));
  if (!r)
    return NULL;
  r->capacity = cap;
  r->tid = cl_gettid();
  atomic_init(&r->held, UINT64_MAX);
  pthread_once(&key_once, make_key);
  pthread_setspecific(ring_key, r);
  pthread_mutex_lock(&registry_lock);
  r->next = rings;
  rings = r;
  pthread_mutex_unlock(&registry_lock);
  return r;
}

/* 1 in a process the shim saw start; 0 (wiped by the kernel) in a child
 * made without fork handlers; NULL where the kernel cannot wipe it */
static volatile unsigned char *seen;
static _Atomic int unseen_said;

void cl_ring_process_start(void)
{
  if (!seen) {
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      return;
    if (madvise(m, 4096, MADV_WIPEONFORK)) {
      munmap(m, 4096);
      return;
    }
    seen = m;
  }
  seen[0] = 1;
}

int cl_ring_unseen_process(int say)
{
  if (!seen || seen[0])
    return 0;
  if (say && !atomic_exchange(&unseen_said, 1))
    CL_LOG(CL_LOG_ERROR, "process %ld was started without fork() (a raw "
                         "clone or clone3): its CUDA calls are not recorded",
           (long)getpid());
  return 1;
}

static _Atomic uint64_t unbuffered; /* records of threads without a ring */

/* how often and how long the program's threads waited for room */
static _Atomic uint64_t waits, wait_ns;

/* R is full: wait for the writer to make room, unless told to drop or it
 * cannot drain (then the record is dropped and counted: NULL).  A wait is
 * counted, with its length, for cl_ring_waits(). */
static struct cl_ring *wait_for_room(struct cl_ring *r, enum cl_rec_type type,
                                     uint64_t tail)
{
  uint64_t since = 0;
  for (unsigned spins = 0;; spins++) {
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    if (tail - head < r->capacity)
      break;
    if (cl_cfg.overflow_drop || !cl_writer_running() || cl_writer_is_self() ||
        !cl_writer_owned_here()) {
      if (type != CL_REC_KARGS) /* (a part of a record: the caller says) */
        atomic_fetch_add_explicit(&r->dropped[type == CL_REC_ACTIVITY], 1,
                                  memory_order_relaxed);
      r = NULL;
      break;
    }
    if (!since)
      since = cl_monotonic_ns();
    cl_writer_wake();
    struct timespec ts = {0, spins < 10 ? 20000 : 200000};
    nanosleep(&ts, NULL);
  }
  if (since) {
    atomic_fetch_add_explicit(&wait_ns, cl_monotonic_ns() - since,
                              memory_order_relaxed);
    atomic_fetch_add_explicit(&waits, 1, memory_order_relaxed);
  }
  return r;
}

void cl_ring_waits(uint64_t *count, uint64_t *ns)
{
  *count = atomic_load_explicit(&waits, memory_order_relaxed);
  *ns = atomic_load_explicit(&wait_ns, memory_order_relaxed);
}

/* cl_ring_reserve in full: a process the shim did not see start, a forked
 * child's first record, the thread's first record, a full ring (out of
 * line: the common case below needs none of its registers) */
static __attribute__((noinline)) struct cl_record *
reserve_slow(enum cl_rec_type type)
{
  if (seen && !seen[0] && cl_ring_unseen_process(1))
    return NULL;
  if (cl_writer_inherited()) {
    /* a forked child before its own first CUDA call: GPU activity and drop
     * counts that CUPTI delivers now are its parent's, recorded there */
    if (type == CL_REC_ACTIVITY || type == CL_REC_DROP)
      return NULL;
    cl_writer_adopt();
  }
  struct cl_ring *r = my_ring;
  if (!r && !(r = my_ring = ring_new())) {
    atomic_fetch_add_explicit(&unbuffered, 1, memory_order_relaxed);
    cl_writer_ensure_started(); /* to count it */
    return NULL;
  }
  cl_writer_ensure_started();
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  if (tail - head >= r->capacity && !(r = wait_for_room(r, type, tail)))
    return NULL;
  return &r->slots[tail & (r->capacity - 1)];
}

struct cl_record *cl_ring_reserve(enum cl_rec_type type)
{
  struct cl_ring *r = my_ring;
  if (!r || (seen && !seen[0]) || cl_writer_inherited())
    return reserve_slow(type);
  cl_writer_ensure_started();
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  if (tail - head >= r->capacity)
    return reserve_slow(type);
  return &r->slots[tail & (r->capacity - 1)];
}

/* (the exchange orders the hold before the caller's next read of the
 * generation: the writer, reading held after the generation, sees either
 * the hold or a thread whose next read is at least what it read) */
int cl_ring_hold(uint64_t gen)
{
  struct cl_ring *r = my_ring;
  if (!r)
    return 0;
  atomic_exchange(&r->held, gen);
  return 1;
}

void cl_ring_release(void)
{
  struct cl_ring *r = my_ring;
  if (r)
    atomic_store_explicit(&r->held, UINT64_MAX, memory_order_release);
}

/* the K-th slot (1, 2, ...) after the one cl_ring_reserve gave, or NULL
 * (no room, waited for as cl_ring_reserve waits, not counted as a loss) */
static struct cl_record *reserve_next(unsigned k)
{
  struct cl_ring *r = my_ring;
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed) + k;
  uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  if (tail - head >= r->capacity && !(r = wait_for_room(r, CL_REC_KARGS, tail)))
    return NULL;
  return &r->slots[tail & (r->capacity - 1)];
}

unsigned cl_ring_put_kargs(const struct cl_karg *v, unsigned n, unsigned *kept)
{
  unsigned done = 0, slots = 0;
  struct cl_record *r;
  while (done < n && (r = reserve_next(slots + 1))) {
    unsigned k = n - done < CL_KARGS_PER_SLOT ? n - done
                                              : (unsigned)CL_KARGS_PER_SLOT;
    r->type = CL_REC_KARGS;
    memcpy(r->u.kargs, v + done, k * sizeof *v);
    done += k, slots++;
  }
  *kept = done;
  return slots;
}

void cl_ring_commit(void) { cl_ring_commit_n(1); }

void cl_ring_commit_n(unsigned n)
{
  struct cl_ring *r = my_ring;
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed) + n - 1;
  atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
  /* The next slot was last read by the writer, on another core, long ago:
   * writing it would wait for each of its cache lines (about 10) in turn.
   * Asking for them now, for writing, overlaps that with the program's own
   * work until its next CUDA call.  (The slot may still hold an undrained
   * record: a prefetch changes no data.) */
  const char *next = (const char *)&r->slots[(tail + 1) & (r->capacity - 1)];
  /* (unrolled: the loop's own count and test were 3 of every 4
   * instructions here) */
#pragma GCC unroll 16
  for (size_t off = 0; off < sizeof(struct cl_record); off += 64)
    __builtin_prefetch(next + off, 1, 3);
  /* wake the writer early when the ring is half full */
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  if (tail + 1 - head >= r->capacity / 2 && tail + 1 - n - head < r->capacity / 2)
    cl_writer_wake();
}

static _Atomic uint64_t orphan_dropped[2]; /* drop counts of freed rings */

void cl_ring_foreach(void (*fn)(struct cl_ring *, void *), void *arg)
{
  pthread_mutex_lock(&registry_lock);
  for (struct cl_ring **pp = &rings; *pp;) {
    struct cl_ring *r = *pp;
    /* a dead owner writes nothing more: once drained, the ring goes */
    if (atomic_load_explicit(&r->dead, memory_order_acquire) &&
        atomic_load(&r->head) == atomic_load(&r->tail)) {
      atomic_fetch_add(&orphan_dropped[0], atomic_load(&r->dropped[0]));
      atomic_fetch_add(&orphan_dropped[1], atomic_load(&r->dropped[1]));
      *pp = r->next;
      free(r);
      continue;
    }
    fn(r, arg);
    pp = &r->next;
  }
  pthread_mutex_unlock(&registry_lock);
}

void cl_ring_take_orphan_drops(uint64_t lost[2])
{
  lost[0] = atomic_exchange(&orphan_dropped[0], 0);
  lost[1] = atomic_exchange(&orphan_dropped[1], 0);
}

uint64_t cl_ring_take_unbuffered(void) { return atomic_exchange(&unbuffered, 0); }

void cl_ring_atfork_prepare(void) { pthread_mutex_lock(&registry_lock); }
void cl_ring_atfork_parent(void) { pthread_mutex_unlock(&registry_lock); }

/* In the child only the forking thread exists, and what the rings hold
 * belongs to the parent's database: forget it all. */
void cl_ring_atfork_child(void)
{
  struct cl_ring *keep = my_ring;
  for (struct cl_ring *r = rings, *next; r; r = next) {
    next = r->next;
    if (r != keep)
      free(r);
  }
  rings = keep;
  if (keep) {
    keep->next = NULL;
    atomic_store(&keep->head, atomic_load(&keep->tail));
    atomic_store(&keep->dropped[0], 0);
    atomic_store(&keep->dropped[1], 0);
  }
  cl_ring_process_start();
  atomic_store(&unseen_said, 0);
  atomic_store(&unbuffered, 0);
  atomic_store(&waits, 0);
  atomic_store(&wait_ns, 0);
  cl_tid = 0;
  if (keep)
    keep->tid = cl_gettid();
  pthread_mutex_init(&registry_lock, NULL);
}

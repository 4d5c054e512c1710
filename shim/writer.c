/* writer.c - the background thread that owns the database.  It starts with the
 * first record (so processes that never touch CUDA leave no file), creates the
 * file named by CUDALENS_OUTPUT, and every CUDALENS_FLUSH_MS (or sooner, when
 * a ring fills) drains every thread's ring into SQLite in one transaction,
 * resolving the kernel argument words a launch left to it (kparams.c).
 * The application's threads never wait on SQLite.  The end of the process
 * (exit, a fatal signal, _exit, an exec) waits for the writer to write what
 * it holds only as long as the writer makes progress.  A forked child has
 * none of its parent's recording: fork waits until the writer is out of
 * SQLite, and the child starts a recording of its own at its first CUDA
 * call, without what it inherited. */
#define _GNU_SOURCE
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h" /* HAVE_SEM_CLOCKWAIT */
#include "ablate.h"
#include "hostfn.h"
#include "kparams.h"
#include "ring.h"
#include "shim.h"
#include "writer.h"
#include "writer_db.h"

/* how long the end of the process waits for a writer that does nothing */
#define STALL_NS (5ull * 1000000000ull)

struct cl_seq_line cl_seq;

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
/* held by the writer while it is inside SQLite, and by fork() */
static pthread_mutex_t db_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t wake_sem;          /* sem_post is async-signal-safe */
static _Atomic int started;     /* a writer was started in this process */
static _Atomic int running;     /* it is draining rings */
static _Atomic int opened;      /* it has tried to open the database */
static _Atomic int recording;   /* it has one to write to */
static _Atomic int finished;    /* it has ended */
static _Atomic int joined;
static _Atomic int closed;      /* the recording has ended: no new writer */
static _Atomic int inherited;   /* a forked child, no CUDA call of its own yet */
static _Atomic int ending;      /* the first cl_writer_end() set these: */
static const char *_Atomic stop_end;
static _Atomic int stop_clean;
static _Atomic int stop_req;
static _Atomic int suspend_req; /* exec wrappers in flight */
static _Atomic int suspended;   /* the database is closed for an exec */
static _Atomic uint64_t passes; /* loops of the writer */
static uint64_t fork_ns;        /* when the last fork happened */
static uint64_t inherited_before_ns; /* GPU activity older is the parent's */
static pid_t owner_pid;         /* the process this state belongs to (not a
                                   vfork child sharing it) */
static pthread_t writer_thread;

int cl_writer_running(void) { return atomic_load(&running); }
int cl_writer_owned_here(void) { return owner_pid == getpid(); }
int cl_writer_is_self(void)
{
  return atomic_load(&started) && pthread_equal(pthread_self(), writer_thread);
}
int cl_writer_inherited(void)
{
  return atomic_load_explicit(&inherited, memory_order_relaxed);
}
void cl_writer_adopt(void) { atomic_store(&inherited, 0); }

void cl_writer_wake(void)
{
  if (atomic_load_explicit(&running, memory_order_relaxed))
    sem_post(&wake_sem);
}

/* ---- one pass: every ring's committed records, in one transaction -------- */
#define MAX_RINGS 4096
struct snapshot {
  struct cl_ring *rings[MAX_RINGS];
  int n;
};

static void collect(struct cl_ring *r, void *arg)
{
  struct snapshot *s = arg;
  if (s->n < MAX_RINGS)
    s->rings[s->n++] = r;
}

static void count_drops(struct cl_db *db, uint64_t calls, uint64_t activity)
{
  if (calls)
    cl_db_drop(db, "ring-full", calls);
  if (activity)
    cl_db_drop(db, "ring-full-activity", activity);
}

/* records of the parent's GPU work that a forked child's CUPTI delivers */
static int inherited_record(const struct cl_record *r)
{
  return r->type == CL_REC_ACTIVITY && r->u.act.start_ns < inherited_before_ns;
}

/* R's tail, and *HELD lowered to the generation a record its thread is
 * filling holds (ring.h): read first, so that a record whose hold is
 * released is below the tail.  Once the records below every ring's tail
 * are resolved, no record left was scanned before *HELD, which was at
 * most the map's generation before the rings were listed
 * (cl_kparams_prune). */
static uint64_t held_then_tail(struct cl_ring *r, uint64_t *held)
{
  uint64_t h = atomic_load(&r->held);
  if (h < *held)
    *held = h;
  return atomic_load_explicit(&r->tail, memory_order_acquire);
}

/* The N argument words of the record at slot HEAD of R (a launch or a
 * graph's kernel node): its own first CL_MAX_KARGS, FIRST, and those of
 * the CL_REC_KARGS records after it (committed with it: shim.h) */
static struct cl_karg *record_words(struct cl_ring *r, uint64_t head,
                                    struct cl_karg *first, unsigned n)
{
  static struct cl_karg all[CL_LAUNCH_KARGS]; /* (the writer thread's) */
  if (n <= CL_MAX_KARGS)
    return first;
  memcpy(all, first, CL_MAX_KARGS * sizeof *all);
  for (unsigned k = CL_MAX_KARGS, slot = 1; k < n; k += CL_KARGS_PER_SLOT, slot++) {
    const struct cl_record *more = &r->slots[(head + slot) & (r->capacity - 1)];
    unsigned left = n - k;
    memcpy(all + k, more->u.kargs,
           (left < CL_KARGS_PER_SLOT ? left : CL_KARGS_PER_SLOT) * sizeof *all);
  }
  return all;
}

/* the words of record REC at slot HEAD of R, for cl_db_put: a launch's
 * resolved if its scan left them to the writer (its nkargs then says how
 * many), a graph kernel node's; NULL for other records */
static const struct cl_karg *words_of(struct cl_ring *r, uint64_t head,
                                      struct cl_record *rec)
{
  /* (no producer writes more: a bound all the same, for all[]) */
  if (rec->type == CL_REC_GRAPH_NODE) {
    if (rec->u.gnode.nkargs > CL_LAUNCH_KARGS)
      rec->u.gnode.nkargs = CL_LAUNCH_KARGS;
    return record_words(r, head, rec->u.gnode.kargs, rec->u.gnode.nkargs);
  }
  if (rec->type != CL_REC_CALL)
    return NULL;
  struct cl_call *c = &rec->u.call;
  if (c->nkargs > CL_LAUNCH_KARGS)
    c->nkargs = CL_LAUNCH_KARGS;
  struct cl_karg *words = record_words(r, head, c->kargs, c->nkargs);
  if (c->kargs_deferred) {
    c->nkargs = (uint16_t)cl_kparams_resolve(words, c->nkargs, c->kargs_gen,
                                             c->kargs_code);
    c->kargs_deferred = 0;
  }
  return words;
}

static void drain(struct cl_db *db)
{
  static struct snapshot snap; /* only the writer thread uses it */
  if (cl_db_begin(db) && !cl_db_counts_losses(db))
    return; /* (after a write error, records are drained and counted) */
  /* (the generation before the rings: a ring registered after them holds
   * none older) */
  uint64_t held = cl_kparams_gen();
  snap.n = 0;
  cl_ring_foreach(collect, &snap);
  for (int i = 0; i < snap.n; i++) {
    struct cl_ring *r = snap.rings[i];
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = held_then_tail(r, &held);
    for (; head != tail; head++) {
      struct cl_record *rec = &r->slots[head & (r->capacity - 1)];
      if (rec->type == CL_REC_KARGS ||
          (CL_ABLATED(CL_ABLATE_WRITE) &&
           (rec->type == CL_REC_CALL || rec->type == CL_REC_ACTIVITY)))
        continue; /* (words read with their launch's or node's record) */
      const struct cl_karg *kargs = words_of(r, head, rec);
      if (!inherited_record(rec))
        cl_db_put(db, rec, kargs);
      /* free the slot early so a blocked producer can go on */
      if ((head & 255) == 255)
        atomic_store_explicit(&r->head, head + 1, memory_order_release);
    }
    atomic_store_explicit(&r->head, head, memory_order_release);
    count_drops(db, atomic_exchange(&r->dropped[0], 0),
                atomic_exchange(&r->dropped[1], 0));
  }
  cl_kparams_prune(held);
  uint64_t unburied = cl_kparams_take_unburied();
  if (unburied)
    cl_db_drop(db, CL_DROP_ALLOC_HISTORY, unburied);
  cl_db_put_host_accesses(db);
  cl_db_put_waits(db);
  uint64_t lost[2];
  cl_ring_take_orphan_drops(lost);
  count_drops(db, lost[0], lost[1]);
  uint64_t unbuffered = cl_ring_take_unbuffered();
  if (unbuffered)
    cl_db_drop(db, "no-buffer", unbuffered);
  uint64_t unobserved = cl_hostfn_take_unobserved();
  if (unobserved)
    cl_db_drop(db, "host-functions-unobserved", unobserved);
  cl_db_commit(db);
}

/* Without a database, records are still drained (so producers never wait)
 * and counted. */
static void discard(void)
{
  static struct snapshot snap;
  uint64_t held = cl_kparams_gen(); /* (as drain) */
  snap.n = 0;
  cl_ring_foreach(collect, &snap);
  for (int i = 0; i < snap.n; i++)
    atomic_store(&snap.rings[i]->head, held_then_tail(snap.rings[i], &held));
  cl_kparams_prune(held);
  cl_kparams_take_unburied();
  cl_ring_take_unbuffered();
}

/* the deadline on the monotonic clock; before glibc 2.30 (no
 * sem_clockwait: the wheel's build for old systems) on the wall clock of
 * sem_timedwait, where a jump of the clock makes one flush early or late */
#ifdef HAVE_SEM_CLOCKWAIT
#define WAIT_CLOCK CLOCK_MONOTONIC
#define sem_wait_until(s, ts) sem_clockwait(s, CLOCK_MONOTONIC, ts)
#else
#define WAIT_CLOCK CLOCK_REALTIME
#define sem_wait_until(s, ts) sem_timedwait(s, ts)
#endif

static void wait_for_work(void)
{
  struct timespec ts;
  clock_gettime(WAIT_CLOCK, &ts);
  uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)cl_cfg.flush_ms * 1000000;
  ts.tv_sec += (time_t)(ns / 1000000000);
  ts.tv_nsec = (long)(ns % 1000000000);
  while (sem_wait_until(&wake_sem, &ts) && errno == EINTR)
    ;
  while (!sem_trywait(&wake_sem))
    ; /* wake-ups that came meanwhile are served by this pass */
}

/* A database that failed (it said so) is given up: from now on records are
 * discarded. */
static struct cl_db *unless_failed(struct cl_db *db)
{
  if (db && cl_db_failed(db) && !cl_db_counts_losses(db)) {
    cl_db_close(db, NULL, 0);
    atomic_store(&recording, 0);
    return NULL;
  }
  return db;
}

static void *writer_main(void *arg)
{
  (void)arg;
  pthread_mutex_lock(&db_lock);
  /* when it fails, cl_db_open has said why in one line; no second line */
  struct cl_db *db = cl_db_open();
  pthread_mutex_unlock(&db_lock);
  atomic_store(&recording, db != NULL);
  atomic_store(&opened, 1);
  for (int stopping = 0; !stopping;) {
    wait_for_work();
    stopping = atomic_load(&stop_req);
    int suspend = !stopping && atomic_load(&suspend_req) > 0;
    if (stopping) /* producers with a full ring stop waiting for us */
      atomic_store(&running, 0);
    pthread_mutex_lock(&db_lock);
    if (db && atomic_load(&suspended) && !suspend) {
      cl_db_resume(db); /* the exec failed; on with the same file */
      atomic_store(&suspended, 0);
      db = unless_failed(db);
    }
    if (db && !atomic_load(&suspended)) {
      drain(db);
      db = unless_failed(db);
    }
    if (db && stopping) {
      cl_db_close(db, atomic_load(&stop_end), atomic_load(&stop_clean));
      db = NULL;
    } else if (db && suspend && !atomic_load(&suspended)) {
      cl_db_suspend(db, "exec");
      db = unless_failed(db);
      atomic_store(&suspended, db != NULL);
    }
    pthread_mutex_unlock(&db_lock);
    if (!db)
      discard();
    atomic_fetch_add(&passes, 1);
  }
  atomic_store(&recording, 0);
  atomic_store(&finished, 1);
  return NULL;
}

void cl_writer_ensure_started(void)
{
  if (atomic_load_explicit(&started, memory_order_acquire))
    return;
  pthread_mutex_lock(&start_lock);
  if (!atomic_load(&started) && !atomic_load(&closed)) {
    sem_init(&wake_sem, 0, 0);
    owner_pid = getpid();
    /* the writer takes none of the program's signals */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    atomic_store(&running, 1);
    if (pthread_create(&writer_thread, NULL, writer_main, NULL)) {
      atomic_store(&running, 0);
      atomic_store(&finished, 1);
      CL_LOG(CL_LOG_ERROR, "cannot start the writer thread: %s; this run is "
                           "not recorded", strerror(errno));
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    atomic_store_explicit(&started, 1, memory_order_release);
  }
  pthread_mutex_unlock(&start_lock);
}

/* ---- waiting for the writer (async-signal-safe) --------------------------- */
static int here(void)
{
  return atomic_load(&started) && !atomic_load(&finished) &&
         owner_pid == getpid() && !cl_writer_is_self();
}

/* Until done() holds, as long as the writer makes progress: 0, or -1 when
 * it did nothing for STALL_NS. */
static int wait_for_writer(int (*done)(void))
{
  uint64_t seen = cl_db_progress() + atomic_load(&passes);
  uint64_t since = cl_monotonic_ns();
  while (!done()) {
    struct timespec ts = {0, 500000};
    nanosleep(&ts, NULL);
    uint64_t p = cl_db_progress() + atomic_load(&passes), t = cl_monotonic_ns();
    if (p != seen) {
      seen = p;
      since = t;
    } else if (t - since >= STALL_NS) {
      CL_LOG(CL_LOG_ERROR, "the writer did nothing for %llu s: going on "
                           "without it; the recording may lack its end",
             STALL_NS / 1000000000ull);
      return -1;
    }
  }
  return 0;
}

static int writer_finished(void) { return atomic_load(&finished); }

void cl_writer_end(const char *end, int clean)
{
  if (owner_pid != getpid())
    return; /* not started here, or a vfork child: touch nothing */
  atomic_store(&closed, 1);
  if (!here())
    return;
  if (!atomic_exchange(&ending, 1)) {
    atomic_store(&stop_end, end);
    atomic_store(&stop_clean, clean);
    atomic_store(&stop_req, 1);
  }
  sem_post(&wake_sem);
  if (!wait_for_writer(writer_finished) && clean &&
      !atomic_exchange(&joined, 1))
    pthread_join(writer_thread, NULL);
}

void cl_writer_stop(int clean) { cl_writer_end(clean ? "exit" : "signal", clean); }

static int writer_suspended(void)
{
  return (atomic_load(&opened) &&
          (atomic_load(&suspended) || !atomic_load(&recording))) ||
         atomic_load(&finished);
}

int cl_writer_suspend(void)
{
  if (!here())
    return 0;
  atomic_fetch_add(&suspend_req, 1);
  sem_post(&wake_sem);
  wait_for_writer(writer_suspended);
  return 1;
}

void cl_writer_resume(int suspended_by_caller)
{
  if (suspended_by_caller && atomic_fetch_sub(&suspend_req, 1) == 1)
    sem_post(&wake_sem);
}

int cl_writer_recording_here(void) { return here(); }

/* ---- fork ------------------------------------------------------------------- */
void cl_writer_atfork_prepare(void)
{
  pthread_mutex_lock(&start_lock);
  pthread_mutex_lock(&db_lock); /* the child gets SQLite in a usable state */
  fork_ns = cl_now_ns();
}

void cl_writer_atfork_parent(void)
{
  pthread_mutex_unlock(&db_lock);
  pthread_mutex_unlock(&start_lock);
}

/* The child has no writer thread and nothing of its own to record yet: what
 * CUPTI still holds of the parent's work is the parent's.  Its first CUDA
 * call starts a writer with a database of its own. */
void cl_writer_atfork_child(void)
{
  pthread_mutex_init(&db_lock, NULL);
  pthread_mutex_init(&start_lock, NULL);
  atomic_store(&started, 0);
  atomic_store(&running, 0);
  atomic_store(&opened, 0);
  atomic_store(&recording, 0);
  atomic_store(&finished, 0);
  atomic_store(&joined, 0);
  atomic_store(&closed, 0);
  atomic_store(&ending, 0);
  atomic_store(&stop_req, 0);
  atomic_store(&suspend_req, 0);
  atomic_store(&suspended, 0);
  atomic_store(&inherited, 1);
  inherited_before_ns = fork_ns;
  owner_pid = getpid();
  cl_db_forget_after_fork();
}

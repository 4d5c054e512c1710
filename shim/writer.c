/* writer.c - the background thread that owns the database.  It starts with the
 * first record (so processes that never touch CUDA leave no file), creates the
 * file named by CUDALENS_OUTPUT, and every CUDALENS_FLUSH_MS (or sooner, when
 * a ring fills) drains every thread's ring into SQLite in one transaction.
 * The application's threads never wait on SQLite. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "writer_db.h"

_Atomic uint64_t cl_seq;

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond;
static _Atomic int started;     /* a writer was started in this process */
static _Atomic int running;     /* it is draining rings */
static _Atomic int finished;    /* it closed the database */
static int wake_flag, stop_flag, stop_clean;
static pthread_t writer_thread;

int cl_writer_running(void) { return atomic_load(&running); }
int cl_writer_is_self(void)
{
  return atomic_load(&started) && pthread_equal(pthread_self(), writer_thread);
}

void cl_writer_wake(void)
{
  if (!atomic_load_explicit(&running, memory_order_relaxed))
    return;
  pthread_mutex_lock(&wake_lock);
  wake_flag = 1;
  pthread_cond_signal(&wake_cond);
  pthread_mutex_unlock(&wake_lock);
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

static void drain(struct cl_db *db)
{
  static struct snapshot snap; /* only the writer thread uses it */
  snap.n = 0;
  cl_ring_foreach(collect, &snap);
  cl_db_begin(db);
  for (int i = 0; i < snap.n; i++) {
    struct cl_ring *r = snap.rings[i];
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    for (; head != tail; head++) {
      cl_db_put(db, &r->slots[head & (r->capacity - 1)]);
      /* free the slot early so a blocked producer can go on */
      if ((head & 255) == 255)
        atomic_store_explicit(&r->head, head + 1, memory_order_release);
    }
    atomic_store_explicit(&r->head, head, memory_order_release);
    count_drops(db, atomic_exchange(&r->dropped[0], 0),
                atomic_exchange(&r->dropped[1], 0));
  }
  cl_db_put_host_accesses(db);
  uint64_t lost[2];
  cl_ring_take_orphan_drops(lost);
  count_drops(db, lost[0], lost[1]);
  cl_db_commit(db);
}

/* Without a database, records are still drained (so producers never wait)
 * and counted. */
static void discard(void)
{
  static struct snapshot snap;
  snap.n = 0;
  cl_ring_foreach(collect, &snap);
  for (int i = 0; i < snap.n; i++)
    atomic_store(&snap.rings[i]->head, atomic_load(&snap.rings[i]->tail));
}

static void *writer_main(void *arg)
{
  (void)arg;
  /* when it fails, cl_db_open has said why in one line; no second line */
  struct cl_db *db = cl_db_open();
  for (;;) {
    pthread_mutex_lock(&wake_lock);
    if (!wake_flag && !stop_flag) {
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC, &ts);
      uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)cl_cfg.flush_ms * 1000000;
      ts.tv_sec += (time_t)(ns / 1000000000);
      ts.tv_nsec = (long)(ns % 1000000000);
      pthread_cond_timedwait(&wake_cond, &wake_lock, &ts);
    }
    wake_flag = 0;
    int stopping = stop_flag;
    pthread_mutex_unlock(&wake_lock);
    if (db)
      drain(db);
    else
      discard();
    if (stopping)
      break;
  }
  atomic_store(&running, 0);
  if (db) {
    drain(db); /* what came in while we were stopping */
    cl_db_close(db, stop_clean);
  }
  atomic_store(&finished, 1);
  return NULL;
}

void cl_writer_ensure_started(void)
{
  if (atomic_load_explicit(&started, memory_order_acquire))
    return;
  pthread_mutex_lock(&start_lock);
  if (!atomic_load(&started)) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wake_cond, &ca);
    pthread_condattr_destroy(&ca);
    /* the writer takes none of the program's signals */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    atomic_store(&running, 1);
    if (pthread_create(&writer_thread, NULL, writer_main, NULL)) {
      atomic_store(&running, 0);
      CL_LOG(CL_LOG_ERROR, "cannot start the writer thread: %s; this run is "
                           "not recorded", strerror(errno));
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    atomic_store_explicit(&started, 1, memory_order_release);
  }
  pthread_mutex_unlock(&start_lock);
}

/* Drain and close.  From a signal handler (clean == 0) it cannot join: it
 * wakes the writer once no thread holds wake_lock (signalling is then safe:
 * every other signaller holds it, and the writer takes no signals) and waits
 * until the database is closed, at most 5 s (a writer that cannot go on). */
void cl_writer_stop(int clean)
{
  if (!atomic_load(&started) || !atomic_load(&running) || cl_writer_is_self())
    return;
  if (clean) {
    pthread_mutex_lock(&wake_lock);
    stop_flag = 1;
    stop_clean = 1;
    pthread_cond_signal(&wake_cond);
    pthread_mutex_unlock(&wake_lock);
    pthread_join(writer_thread, NULL);
    return;
  }
  stop_flag = 1;
  for (int i = 0, woken = 0; i < 1000 && !atomic_load(&finished); i++) {
    if (!woken && !pthread_mutex_trylock(&wake_lock)) {
      pthread_cond_signal(&wake_cond);
      pthread_mutex_unlock(&wake_lock);
      woken = 1;
    }
    struct timespec ts = {0, 5000000};
    nanosleep(&ts, NULL);
  }
}

void cl_writer_atfork_prepare(void)
{
  pthread_mutex_lock(&start_lock);
  pthread_mutex_lock(&wake_lock);
}

void cl_writer_atfork_parent(void)
{
  pthread_mutex_unlock(&wake_lock);
  pthread_mutex_unlock(&start_lock);
}

/* The child has no writer thread; its first record starts one, with a
 * database of its own.  The parent's connection is forgotten, not closed:
 * closing it here could checkpoint or delete the parent's WAL. */
void cl_writer_atfork_child(void)
{
  pthread_mutex_init(&wake_lock, NULL);
  pthread_mutex_init(&start_lock, NULL);
  atomic_store(&started, 0);
  atomic_store(&running, 0);
  atomic_store(&finished, 0);
  wake_flag = stop_flag = stop_clean = 0;
  cl_db_forget_after_fork();
}

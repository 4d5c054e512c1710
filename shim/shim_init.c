/* shim_init.c - libcudalens.so's life cycle: configuration from the library
 * constructor, CUPTI subscription when CUDA is first loaded into the process
 * (already at start-up, or later through dlopen(): dlhook.c calls
 * cl_cuda_maybe_loaded), the fork handlers that take every lock of the shim
 * (listed in one place), and the final flush at exit.  A process that never
 * loads CUDA gets no CUPTI, no file and no message.  The library exports no
 * symbols of its own but its wrappers and NVTX's entry point (nvtx.c). */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cudaload.h"
#include "cupti_bind.h"
#include "hostcode.h"
#include "hostguard.h"
#include "kparams.h"
#include "nccl.h"
#include "nccl_load.h"
#include "nvtx.h"
#include "ring.h"
#include "shim.h"
#include "shim_init.h"
#include "signals.h"
#include "sigwrap.h"
#include "sqlite_api.h"
#include "stack.h"
#include "writer.h"
#include "writer_db.h"

static pthread_once_t config_once CL_STARTUP_DATA = PTHREAD_ONCE_INIT;
static _Atomic int active CL_STARTUP_DATA, finished CL_STARTUP_DATA;
/* waiting for CUDA, starting (one thread subscribes), done (recording, or
 * not: disabled or CUPTI unavailable) */
enum { WAITING, STARTING, DONE };
static _Atomic int state CL_STARTUP_DATA = WAITING;
/* when the shim was configured */
static struct timespec loaded_at CL_STARTUP_DATA;

/* Every lock of the shim, in the order fork takes them. */
static void atfork_prepare(void)
{
  cl_writer_atfork_prepare();
  cl_ring_atfork_prepare();
  cl_strings_atfork_prepare();
  cl_kparams_atfork_prepare();
  cl_hostcode_atfork_prepare();
  cl_hostguard_atfork_prepare();
  cl_sigwrap_atfork_prepare();
  cl_nvtx_atfork_prepare();
  /* last: the writer may look for NCCL (dlsym) holding its own locks */
  cl_nccl_comms_atfork_prepare();
  cl_nccl_atfork_prepare();
}

static void atfork_parent(void)
{
  cl_nccl_atfork_parent();
  cl_nccl_comms_atfork_parent();
  cl_nvtx_atfork_parent();
  cl_sigwrap_atfork_parent();
  cl_hostguard_atfork_parent();
  cl_hostcode_atfork_parent();
  cl_kparams_atfork_parent();
  cl_strings_atfork_parent();
  cl_ring_atfork_parent();
  cl_writer_atfork_parent();
}

static void atfork_child(void)
{
  cl_nccl_atfork_child();
  cl_nccl_comms_atfork_child();
  cl_nvtx_atfork_child();
  cl_sigwrap_atfork_child();
  cl_hostguard_atfork_child();
  cl_hostcode_atfork_child();
  cl_kparams_atfork_child();
  cl_strings_atfork_child();
  cl_ring_atfork_child();
  cl_writer_atfork_child();
}

CL_STARTUP_CODE static void finish(void)
{
  if (!atomic_load(&active) || atomic_exchange(&finished, 1) ||
      cl_ring_unseen_process(0))
    return; /* (a raw clone child: nothing of its own to flush) */
  if (cl_writer_inherited()) {
    /* a forked child that made no CUDA call: what CUPTI holds is its
     * parent's, and nothing of its own is recorded */
    cl_writer_end("exit", 1);
    return;
  }
  cl_end_ns = cl_now_ns(); /* before our own flushing */
  cl_capture_stop();   /* flush CUPTI's activity buffers, unsubscribe */
  cl_writer_stop(1);   /* drain every ring, close the database */
}

/* CLOCK_MONOTONIC from the kernel: the C library's clock_gettime (a page of
 * its code) and the vDSO's data page that it reads are two page faults in
 * a process that never asks the time (true, sed, the shell; issue 24, item
 * 10), a system call is less */
static void monotonic_now(struct timespec *ts)
{
#if defined(SYS_clock_gettime) && (defined(__x86_64__) || defined(__aarch64__))
  if (!syscall(SYS_clock_gettime, CLOCK_MONOTONIC, ts))
    return;
#endif
  clock_gettime(CLOCK_MONOTONIC, ts);
}

CL_STARTUP_CODE static void configure(void)
{
  monotonic_now(&loaded_at);
  cl_log_init(); /* what stderr is (log.c) */
  cl_config_load();
  if (cl_cfg.disable)
    atomic_store(&state, DONE);
}

/* The shim's start time on CUPTI's clock: when it was loaded, not when CUDA
 * appeared (a Python program may import for seconds before). */
static uint64_t load_time_ns(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  int64_t since = (int64_t)(now.tv_sec - loaded_at.tv_sec) * 1000000000 +
                  (now.tv_nsec - loaded_at.tv_nsec);
  uint64_t t = cl_now_ns();
  return since > 0 && (uint64_t)since < t ? t - (uint64_t)since : t;
}

/* The C library's flag that no thread was ever created (glibc 2.32,
 * <sys/single_threaded.h>); weak: where the C library lacks it, its
 * address is NULL and configure_once always takes pthread_once. */
extern char __libc_single_threaded __attribute__((weak));

static _Atomic int configured CL_STARTUP_DATA;

CL_STARTUP_CODE static void configure_mark(void)
{
  if (!atomic_load_explicit(&configured, memory_order_acquire)) {
    configure();
    atomic_store_explicit(&configured, 1, memory_order_release);
  }
}

/* configure() once.  While the process has one thread (the constructor's
 * case, nearly always) no other can be configuring: configure() runs
 * without pthread_once, whose futex system call (a wake after every run)
 * and lazy binding cost every process ~2 us (issue 24, item 10).  The flag
 * is the one the C library trusts to skip its own locks; pthread_create
 * clears it before a thread starts (a thread made with a raw clone() does
 * not clear it: such a runtime's threads could configure at once).
 * Otherwise pthread_once, for what it does that an atomic flag would not:
 * a child forked while another thread configured runs it again, where a
 * waiter would wait forever. */
CL_STARTUP_CODE static void configure_once(void)
{
  if (atomic_load_explicit(&configured, memory_order_acquire))
    return;
  if (&__libc_single_threaded && __libc_single_threaded)
    configure_mark();
  else
    pthread_once(&config_once, configure_mark);
}

static void start(const struct cl_cuda_found *f)
{
  char why[1024];
  if (cl_dbfd_no_room(why, sizeof why) || cl_cupti_bind(f, why, sizeof why)) {
    CL_LOG(CL_LOG_ERROR, "%s; this run is not recorded", why);
    return;
  }
  /* SQLite's library, loaded here beside CUPTI's rather than by the writer
   * thread, which must never wait for the loader's lock that a thread
   * blocked on a full ring may hold */
  if (cl_sqlite_load(why, sizeof why)) {
    CL_LOG(CL_LOG_ERROR, "%s; this run is not recorded", why);
    return;
  }
  cl_stack_init();
  cl_start_ns = load_time_ns();
  if (cl_capture_start())
    return;
  atomic_store(&active, 1);
  cl_ring_process_start();
  cl_nvtx_flush_pending();
  pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
  atexit(finish);
  cl_signals_install();
  cl_hostguard_init(); /* after: it chains to the handlers installed above */
  CL_LOG(CL_LOG_INFO, "capturing through CUPTI");
  cl_nccl_enable();
  cl_nccl_maybe_loaded(); /* NCCL loaded with CUDA, or before it */
}

int cl_shim_waiting(void) { return atomic_load(&state) == WAITING; }

/* set as the shim's constructor starts (shim_init.h) */
static _Atomic int constructed CL_STARTUP_DATA;
int cl_shim_constructed(void)
{
  return atomic_load_explicit(&constructed, memory_order_relaxed);
}

/* The start, by the one thread that moved the state to STARTING: which
 * CUDA is loaded (a path of up to 4 KiB, on this stack only here, not in the
 * look that every process makes; issue 24, item 10). */
static __attribute__((noinline)) int start_found(void)
{
  struct cl_cuda_found f;
  if (!cl_cuda_scan(&f)) { /* unloaded since the look */
    atomic_store(&state, WAITING);
    return 0;
  }
  CL_LOG(CL_LOG_DEBUG, "CUDA is loaded (runtime %s, driver %s)",
         f.runtime[0] ? f.runtime : "static or none", f.driver ? "yes" : "no");
  start(&f);
  atomic_store(&state, DONE);
  return 1;
}

/* The thread that sees CUDA first subscribes, before its dlopen() returns.
 * Another thread that finds the start under way does not wait for it (it
 * might hold the loader's lock that the start needs). */
CL_STARTUP_CODE int cl_cuda_maybe_loaded(void)
{
  if (atomic_load(&state) != WAITING)
    return 0;
  configure_once();
  int expect = WAITING;
  if (!cl_cuda_appeared() ||
      !atomic_compare_exchange_strong(&state, &expect, STARTING))
    return 0;
  return start_found();
}

__attribute__((constructor)) static void cl_constructor(void)
{
  atomic_store_explicit(&constructed, 1, memory_order_relaxed);
  configure_once();
  cl_cuda_maybe_loaded();
}
__attribute__((destructor)) static void cl_destructor(void) { finish(); }

/* DT_FINI, which the loader calls after the destructors (shim/local.mk
 * links with -fini=cl_dt_fini where the linker takes it): the C library's
 * _fini does nothing either, but its .fini section lies after all the
 * shim's code, a window of code of its own for the kernel's fault-around
 * in every process at exit. */
CL_STARTUP_CODE void cl_dt_fini(void);
CL_STARTUP_CODE void cl_dt_fini(void) {}

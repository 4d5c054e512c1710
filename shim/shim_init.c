/* shim_init.c - libcudalens.so's life cycle: configuration and CUPTI
 * subscription once from the library constructor (under pthread_once), the
 * fork handlers that take every lock of the shim (listed in one place), and
 * the final flush at exit.  The library exports no symbols of its own. */
#include <stdlib.h>

#include "shim.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static _Atomic int active, finished;

/* Every lock of the shim, in the order fork takes them. */
static void atfork_prepare(void)
{
  cl_writer_atfork_prepare();
  cl_ring_atfork_prepare();
  cl_strings_atfork_prepare();
  cl_kparams_atfork_prepare();
  cl_hostguard_atfork_prepare();
  cl_sigwrap_atfork_prepare();
}

static void atfork_parent(void)
{
  cl_sigwrap_atfork_parent();
  cl_hostguard_atfork_parent();
  cl_kparams_atfork_parent();
  cl_strings_atfork_parent();
  cl_ring_atfork_parent();
  cl_writer_atfork_parent();
}

static void atfork_child(void)
{
  cl_sigwrap_atfork_child();
  cl_hostguard_atfork_child();
  cl_kparams_atfork_child();
  cl_strings_atfork_child();
  cl_ring_atfork_child();
  cl_writer_atfork_child();
}

static void finish(void)
{
  if (!atomic_load(&active) || atomic_exchange(&finished, 1))
    return;
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

static void init(void)
{
  cl_config_load();
  if (cl_cfg.disable)
    return;
  char why[1024];
  if (cl_cupti_bind(why, sizeof why)) {
    CL_LOG(CL_LOG_ERROR, "%s; this run is not recorded", why);
    return;
  }
  cl_stack_init();
  cl_start_ns = cl_now_ns();
  if (cl_capture_start())
    return;
  atomic_store(&active, 1);
  pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
  atexit(finish);
  cl_signals_install();
  cl_hostguard_init(); /* after: it chains to the handlers installed above */
  CL_LOG(CL_LOG_INFO, "capturing through CUPTI");
}

__attribute__((constructor)) static void cl_constructor(void)
{
  pthread_once(&init_once, init);
}

__attribute__((destructor)) static void cl_destructor(void) { finish(); }

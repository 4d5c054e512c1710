/* signals.c - flushes the recording when the program dies of a fatal signal
 * whose action is the default one: the writer drains what the threads
 * recorded and closes the database, then the default action runs.  The
 * signals are taken over through sigwrap.c, which keeps the program's view
 * unchanged (it still reads SIG_DFL, and installs its own handlers as it
 * would); signals the program already handles are left alone. */
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "signals.h"
#include "sigwrap.h"
#include "writer.h"

static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                            SIGTERM, SIGINT, SIGQUIT};

/* The first fatal signal flushes.  Another one meanwhile, on another
 * thread (a second Ctrl-C or SIGTERM: the flushing thread has every signal
 * blocked), waits for that flush before its default action ends the
 * process (issue 24, defect 6: it ended it mid-flush, with no end).  The
 * flush waits for the writer only while it makes progress, so this wait
 * ends too. */
static void flush(int sig)
{
  /* 0; the pid of the process flushing (a forked child's copy is not its
   * own); -1 once flushed */
  static _Atomic pid_t state;
  (void)sig;
  pid_t expect = 0, me = getpid();
  if (atomic_compare_exchange_strong(&state, &expect, me)) {
    cl_writer_stop(0);
    atomic_store(&state, -1);
    return;
  }
  while (atomic_load(&state) == me) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

void cl_signals_install(void)
{
  /* the init of a PID namespace (a container's first process) never gets
   * signals whose action is the default one: a handler would change that */
  if (getpid() == 1)
    return;
  for (unsigned i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
    cl_sigwrap_flush_on(fatal[i], flush);
}

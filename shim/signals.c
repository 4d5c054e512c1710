/* signals.c - flushes the recording when the program dies of a fatal signal
 * whose action is the default one: the writer drains what the threads
 * recorded and closes the database, then the default action runs.  The
 * signals are taken over through sigwrap.c, which keeps the program's view
 * unchanged (it still reads SIG_DFL, and installs its own handlers as it
 * would); signals the program already handles are left alone. */
#include <signal.h>
#include <unistd.h>

#include "shim.h"

static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                            SIGTERM, SIGINT, SIGQUIT};

static void flush(int sig)
{
  static _Atomic int once;
  (void)sig;
  if (!atomic_exchange(&once, 1))
    cl_writer_stop(0);
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

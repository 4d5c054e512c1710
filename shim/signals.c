/* signals.c - flushes the recording when the program dies of a fatal signal
 * it does not handle itself: the writer drains what the threads recorded and
 * closes the database, then the default action runs (the signal is raised
 * again).  Signals the program already handles are left alone, and a program
 * that installs its own handler later simply replaces ours. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                            SIGTERM, SIGINT, SIGQUIT};

static void on_fatal(int sig)
{
  static volatile sig_atomic_t once;
  if (!once) {
    once = 1;
    cl_writer_stop(0);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void cl_signals_install(void)
{
  for (unsigned i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
    struct sigaction old;
    if (sigaction(fatal[i], NULL, &old) || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO))
      continue;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(fatal[i], &sa, NULL);
  }
}

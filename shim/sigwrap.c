/* sigwrap.c - keeps the shim's SIGSEGV handler first in line while the
 * host-access check (hostguard.c) is on.  The program's own handlers (Python's
 * faulthandler, a JVM, the program's) are not replaced: sigaction() and
 * signal() are wrapped so that a handler the program installs for SIGSEGV is
 * kept as the next in the chain, and every fault that is not ours is passed
 * to it exactly as the kernel delivered it.  Each exported wrapper is a
 * one-line forward into a cl_ function; the real functions are bound once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "shim.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction;
static pthread_once_t bind_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t chain_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction chained; /* the program's SIGSEGV handler */
static int (*fault_handler)(int, siginfo_t *, void *);
static _Atomic int installed;

static void bind_real(void)
{
  real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
  int saved = errno;
  if (fault_handler && fault_handler(sig, si, uc)) {
    errno = saved;
    return; /* ours: the access runs again, now allowed */
  }
  errno = saved;
  struct sigaction next = chained;
  if (next.sa_flags & SA_SIGINFO) {
    next.sa_sigaction(sig, si, uc);
  } else if (next.sa_handler == SIG_DFL || next.sa_handler == SIG_IGN) {
    /* restore the default action; returning makes a fault happen again, but
     * a signal sent by raise() or kill() (si_code <= 0) must be sent again,
     * or the program would go on after raise(SIGSEGV) */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    real_sigaction(sig, &dfl, NULL);
    if (si->si_code <= 0 && next.sa_handler == SIG_DFL)
      raise(sig);
  } else {
    next.sa_handler(sig);
  }
}

int cl_sigwrap_install(int (*handler)(int, siginfo_t *, void *))
{
  pthread_once(&bind_once, bind_real);
  if (!real_sigaction)
    return -1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  pthread_mutex_lock(&chain_lock);
  fault_handler = handler;
  int r = real_sigaction(SIGSEGV, &sa, &chained);
  if (r == 0)
    atomic_store(&installed, 1);
  pthread_mutex_unlock(&chain_lock);
  return r;
}

void cl_sigwrap_atfork_prepare(void) { pthread_mutex_lock(&chain_lock); }
void cl_sigwrap_atfork_parent(void) { pthread_mutex_unlock(&chain_lock); }
void cl_sigwrap_atfork_child(void) { pthread_mutex_init(&chain_lock, NULL); }

int cl_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
  pthread_once(&bind_once, bind_real);
  if (!real_sigaction) {
    errno = ENOSYS;
    return -1;
  }
  if (sig != SIGSEGV || !atomic_load(&installed))
    return real_sigaction(sig, act, old);
  pthread_mutex_lock(&chain_lock);
  if (old)
    *old = chained;
  if (act)
    chained = *act;
  pthread_mutex_unlock(&chain_lock);
  return 0;
}

sighandler_t cl_signal(int sig, sighandler_t handler)
{
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART; /* BSD semantics, as glibc's signal() */
  sigemptyset(&sa.sa_mask);
  if (cl_sigaction(sig, &sa, &old))
    return SIG_ERR;
  return old.sa_handler;
}

/* the wrappers the shim exports on purpose */
__attribute__((visibility("default"))) int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
  return cl_sigaction(sig, act, old);
}

__attribute__((visibility("default"))) sighandler_t signal(int sig,
                                                            sighandler_t h)
{
  return cl_signal(sig, h);
}

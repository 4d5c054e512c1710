/* earlylib.c - a library whose constructor installs fatal-signal handlers
 * before the shim starts, as a crash reporter, a JIT or a language runtime
 * does (issue 24, defect 1).  Preloaded after libcudalens.so by
 * tests/signals/early.test.  EARLYLIB=raw installs them with the raw
 * rt_sigaction system call (as a runtime with its own system-call layer
 * does), bypassing any wrapper; anything else, with sigaction().  The
 * SIGSEGV handler is a crash reporter: it says so and exits 3. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void reporter(int sig, siginfo_t *si, void *uc)
{
  (void)sig, (void)si, (void)uc;
  static const char msg[] = "earlylib: crash reporter fired\n";
  ssize_t r = write(1, msg, sizeof msg - 1);
  (void)r;
  _exit(3);
}

static void on_term(int sig) { (void)sig; }

/* the kernel's struct sigaction on x86-64 and most others */
struct ksigaction {
  void *handler;
  unsigned long flags;
  void *restorer;
  unsigned long mask;
};

static void install(int sig, void *handler, int flags)
{
  const char *mode = getenv("EARLYLIB");
  if (mode && !strcmp(mode, "raw")) {
    struct ksigaction k = {handler, (unsigned long)flags, NULL, 0};
    syscall(SYS_rt_sigaction, sig, &k, NULL, sizeof k.mask);
    return;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = (void (*)(int, siginfo_t *, void *))handler;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

__attribute__((constructor)) static void early(void)
{
  install(SIGSEGV, (void *)reporter, SA_SIGINFO | SA_RESETHAND);
  install(SIGTERM, (void *)on_term, SA_RESTART);
}

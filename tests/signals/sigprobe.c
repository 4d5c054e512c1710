/* sigprobe.c - a program that uses CUDA (libcudart.so.13, loaded with dlopen
 * as Python and frameworks do) and then exercises signal dispositions, for
 * tests/signals: each mode prints what it observes, so that a run under the
 * shim can be compared with a native one (output and exit status).
 *
 *   sigprobe query       what sigaction() and friends report and keep
 *   sigprobe resethand   SA_RESETHAND handlers (SIGSEGV fault, raised SIGINT)
 *   sigprobe ign-raise   SIGSEGV ignored, then raise(SIGSEGV) twice: goes on
 *   sigprobe ign-fault   SIGSEGV ignored, then a fault: dies of SIGSEGV
 *   sigprobe handlers    SIGSEGV handlers: SA_SIGINFO, sa_mask, SA_NODEFER,
 *                        SA_ONSTACK, signal(), errno, a handler that returns
 *   sigprobe masked      SIGSEGV blocked: a thread that blocked every signal
 *                        reads pinned memory of an in-flight copy; a raised
 *                        SIGSEGV waits until it is unblocked
 *   sigprobe default-signals CMD [ARGS...]
 *                        no CUDA: runs CMD with SIGINT and SIGQUIT at their
 *                        default action (a shell started in the background
 *                        passes them on ignored)
 *   sigprobe early [late|mid] what SIGSEGV and SIGTERM read back (handlers
 *                        installed before the shim started, by
 *                        tests/signals/earlylib.c; with late, a SIGSEGV
 *                        crash reporter installed now through the raw
 *                        system call; with mid, the same once a first
 *                        copy is in flight, its pages protected), then a
 *                        read of the pinned destination of an in-flight
 *                        copy
 *   sigprobe altstack    a SIGSEGV handler on a small alternate signal
 *                        stack (the kernel's minimum and 1 KiB, a guard
 *                        page below) that uses all of it but 256 bytes
 *                        (what a native run may): the program's own
 *                        faults, then a
 *                        read of the pinned destination of an in-flight
 *                        copy (the host-access check's fault)
 *   sigprobe term-twice N  N cudaMemset calls, then raise(SIGTERM), and a
 *                        second SIGTERM from another thread 30 ms later
 *                        (under the shim: during the final flush)
 *   sigprobe term        CUDA work in a thread, which wakes the writer as it
 *                        exits; under the shim, waits until those calls are
 *                        in the recording (the writer then sleeps for its
 *                        flush interval); CUDA work, then raise(SIGTERM)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* siginterrupt() is exercised on purpose */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void *rt;

/* cudaMalloc, a copy to the device, cudaDeviceSynchronize */
static void cuda_work(void)
{
  rt = dlopen("libcudart.so.13", RTLD_NOW);
  if (!rt) {
    fprintf(stderr, "sigprobe: %s\n", dlerror());
    exit(2);
  }
  int (*malloc_)(void **, size_t) =
      (int (*)(void **, size_t))dlsym(rt, "cudaMalloc");
  int (*memcpy_)(void *, const void *, size_t, int) =
      (int (*)(void *, const void *, size_t, int))dlsym(rt, "cudaMemcpy");
  int (*sync_)(void) = (int (*)(void))dlsym(rt, "cudaDeviceSynchronize");
  void *d = NULL;
  char h[256] = {0};
  if (!malloc_ || !memcpy_ || !sync_ || malloc_(&d, sizeof h) ||
      memcpy_(d, h, sizeof h, 1) || sync_()) {
    fprintf(stderr, "sigprobe: CUDA calls failed\n");
    exit(2);
  }
}

static void say(const char *s)
{
  ssize_t r = write(1, s, strlen(s));
  (void)r;
}

static const char *kind(void (*h)(int))
{
  return h == SIG_DFL ? "SIG_DFL" : h == SIG_IGN ? "SIG_IGN" : "handler";
}

static void show(const char *what, int sig)
{
  struct sigaction sa;
  memset(&sa, 0x5a, sizeof sa);
  if (sigaction(sig, NULL, &sa)) {
    printf("%s: sigaction failed: %s\n", what, strerror(errno));
    return;
  }
  unsigned long long mask = 0;
  for (int s = 1; s <= 64; s++)
    if (sigismember(&sa.sa_mask, s) == 1)
      mask |= 1ull << (s - 1);
  printf("%s: %s flags=%#x mask=%#llx\n", what, kind(sa.sa_handler),
         (unsigned)sa.sa_flags, mask);
}

static void nothing(int sig) { (void)sig; }

static int query(void)
{
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                             SIGTERM, SIGINT, SIGQUIT, SIGUSR1};
  char name[32];
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    snprintf(name, sizeof name, "initial %s", sigabbrev_np(sigs[i]));
    show(name, sigs[i]);
  }
  for (int sig = SIGINT; sig; sig = sig == SIGINT ? SIGSEGV : 0) {
    const char *n = sigabbrev_np(sig);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = nothing;
    sigfillset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_RESETHAND | SA_ONSTACK | 0x100;
    memset(&old, 0x5a, sizeof old);
    sigaction(sig, &sa, &old);
    printf("%s: sigaction replaced %s flags=%#x\n", n, kind(old.sa_handler),
           (unsigned)old.sa_flags);
    snprintf(name, sizeof name, "%s after sigaction", n);
    show(name, sig);
    printf("%s: signal(SIG_DFL) replaced %s\n", n,
           kind(signal(sig, SIG_DFL)));
    snprintf(name, sizeof name, "%s after signal", n);
    show(name, sig);
    printf("%s: sysv_signal(SIG_IGN) replaced %s\n", n,
           kind(sysv_signal(sig, SIG_IGN)));
    snprintf(name, sizeof name, "%s after sysv_signal", n);
    show(name, sig);
    siginterrupt(sig, 1);
    snprintf(name, sizeof name, "%s after siginterrupt", n);
    show(name, sig);
    printf("%s: signal(handler) replaced %s\n", n, kind(signal(sig, nothing)));
    snprintf(name, sizeof name, "%s after signal", n);
    show(name, sig);
    siginterrupt(sig, 0);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(sig, &sa, NULL);
    snprintf(name, sizeof name, "%s restored", n);
    show(name, sig);
  }
  return 0;
}

/* ---- SA_RESETHAND ---------------------------------------------------------- */
static volatile sig_atomic_t calls;

static void once(int sig)
{
  char buf[96];
  struct sigaction now;
  sigaction(sig, NULL, &now);
  snprintf(buf, sizeof buf, "handler %d for %s, now %s\n", (int)++calls,
           sigabbrev_np(sig), kind(now.sa_handler));
  say(buf);
  if (calls >= 3) { /* a handler that is not reset runs again and again */
    say("handler not reset\n");
    _exit(3);
  }
}

static int resethand(const char *which)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = once;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  if (!strcmp(which, "INT")) {
    sigaction(SIGINT, &sa, NULL);
    raise(SIGINT);
    say("raising SIGINT again\n");
    raise(SIGINT);
    return 4;
  }
  sigaction(SIGSEGV, &sa, NULL);
  say("faulting\n");
  *(volatile int *)NULL = 1; /* the handler returns: the access runs again */
  return 4;
}

static int ignored(int fault)
{
  printf("signal(SIGSEGV, SIG_IGN) replaced %s\n",
         kind(signal(SIGSEGV, SIG_IGN)));
  fflush(stdout);
  if (fault) {
    *(volatile int *)NULL = 1;
    return 4;
  }
  for (int i = 1; i <= 2; i++) {
    raise(SIGSEGV);
    printf("raise(SIGSEGV) %d returned, SIGSEGV ignored\n", i);
  }
  return 0;
}

/* ---- handlers -------------------------------------------------------------- */
static sigjmp_buf back;
static char *bad;         /* a PROT_NONE page */
static char *alt_lo, *alt_hi;
static char line[512];

static void describe(int sig, siginfo_t *si)
{
  sigset_t cur;
  pthread_sigmask(SIG_BLOCK, NULL, &cur);
  char here;
  snprintf(line, sizeof line,
           "sig=%s siginfo=%s code=%d addr=%s blocked: SEGV=%d USR1=%d "
           "USR2=%d on-altstack=%d",
           sigabbrev_np(sig), si ? "yes" : "no", si ? si->si_code : 0,
           !si ? "-" : si->si_addr == bad + 8 ? "the page" : "other",
           sigismember(&cur, SIGSEGV), sigismember(&cur, SIGUSR1),
           sigismember(&cur, SIGUSR2), &here >= alt_lo && &here < alt_hi);
}

static void with_info(int sig, siginfo_t *si, void *uc)
{
  (void)uc;
  describe(sig, si);
  siglongjmp(back, 1);
}

static void plain(int sig)
{
  describe(sig, NULL);
  calls++;
  errno = 42; /* seen by the interrupted code */
}

static void fault_with(const char *what, int flags, int usr1)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = with_info;
  sa.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&sa.sa_mask);
  if (usr1)
    sigaddset(&sa.sa_mask, SIGUSR1);
  sigaction(SIGSEGV, &sa, NULL);
  line[0] = 0;
  if (!sigsetjmp(back, 1))
    bad[8] = 1;
  printf("%s: %s\n", what, line);
}

static int handlers(void)
{
  bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (bad == MAP_FAILED)
    return 2;
  fault_with("SA_SIGINFO, sa_mask USR1", 0, 1);
  fault_with("SA_SIGINFO|SA_NODEFER", SA_NODEFER, 0);
  stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
  alt_lo = ss.ss_sp;
  alt_hi = alt_lo + ss.ss_size;
  sigaltstack(&ss, NULL);
  fault_with("SA_SIGINFO|SA_ONSTACK", SA_ONSTACK, 0);
  signal(SIGSEGV, plain);
  errno = 0;
  raise(SIGSEGV);
  printf("signal(), raised: %s; errno after it %d\n", line, errno);
  raise(SIGSEGV);
  printf("raised again: handler ran %d times\n", (int)calls);
  return 0;
}

/* ---- a fatal signal after CUDA work ---------------------------------------- */
static void *worker(void *arg)
{
  (void)arg;
  cuda_work();
  return NULL;
}

/* 0 when the recording at PATH holds at least N calls.  It runs in a child
 * process: SQLite's POSIX locks belong to the process, so a connection of
 * this program's own SQLite, once closed, would drop the locks of the
 * shim's connection to the same file (two SQLite libraries in one process,
 * sqlite.org/howtocorrupt.html 2.2): the writer's shared memory could then
 * be reset under it (a SIGBUS, seen once in four runs on an H100). */
static int has_calls(const char *path, int n)
{
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    sqlite3 *db;
    sqlite3_stmt *st;
    int have = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM calls", -1, &st, NULL) ==
            SQLITE_OK) {
      if (sqlite3_step(st) == SQLITE_ROW)
        have = sqlite3_column_int(st, 0);
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
    _exit(have >= n ? 0 : 1);
  }
  int status;
  if (waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Under the shim (CUDALENS_OUTPUT set), wait until the recording holds n
 * calls: the writer has drained once and sleeps again. */
static void wait_for_calls(int n)
{
  const char *pat = getenv("CUDALENS_OUTPUT");
  char path[4096];
  if (!pat || !getenv("LD_PRELOAD"))
    return;
  const char *p = strstr(pat, "%p");
  if (!p)
    return;
  snprintf(path, sizeof path, "%.*s%d%s", (int)(p - pat), pat, (int)getpid(),
           p + 2);
  for (int i = 0; i < 6000; i++) { /* a minute at most, not a hang */
    if (has_calls(path, n) == 0)
      return;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  printf("the recording never got %d calls\n", n);
}

static int term(void)
{
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
    return 2;
  wait_for_calls(3);
  cuda_work();
  printf("raising SIGTERM\n");
  fflush(stdout);
  raise(SIGTERM);
  return 4;
}

static void *second_term(void *arg)
{
  (void)arg;
  struct timespec ts = {0, 30000000};
  nanosleep(&ts, NULL);
  kill(getpid(), SIGTERM); /* this thread has it unblocked: delivered here */
  return NULL;
}

static int term_twice(int n)
{
  int (*malloc_)(void **, size_t) =
      (int (*)(void **, size_t))dlsym(rt, "cudaMalloc");
  int (*memset_)(void *, int, size_t) =
      (int (*)(void *, int, size_t))dlsym(rt, "cudaMemset");
  void *d = NULL;
  if (!malloc_ || !memset_ || malloc_(&d, 4096))
    return 2;
  for (int i = 0; i < n; i++)
    if (memset_(d, i & 0xff, 4096))
      return 2;
  printf("raising SIGTERM twice\n");
  fflush(stdout);
  pthread_t t;
  if (pthread_create(&t, NULL, second_term, NULL))
    return 2;
  raise(SIGTERM);
  pthread_join(t, NULL);
  return 4;
}

/* ---- SIGSEGV blocked ----------------------------------------------------- */
static float *pinned;
static volatile sig_atomic_t segv_seen;
static void note_segv(int sig)
{
  (void)sig;
  segv_seen++;
}

static double pinned_sum(void)
{
  double s = 0;
  for (size_t i = 0; i < (1u << 20); i += 1024)
    s += pinned[i];
  return s;
}

static void *masked_reader(void *arg)
{
  (void)arg;
  sigset_t all, cur;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  pthread_sigmask(SIG_BLOCK, NULL, &cur);
  double s = pinned_sum();
  printf("reader: SIGSEGV blocked %d, sum %g\n", sigismember(&cur, SIGSEGV), s);
  return NULL;
}

static int masked(void)
{
  int (*malloc_)(void **, size_t) =
      (int (*)(void **, size_t))dlsym(rt, "cudaMalloc");
  int (*host_)(void **, size_t) =
      (int (*)(void **, size_t))dlsym(rt, "cudaMallocHost");
  int (*memset_)(void *, int, size_t) =
      (int (*)(void *, int, size_t))dlsym(rt, "cudaMemset");
  int (*copy_)(void *, const void *, size_t, int, void *) =
      (int (*)(void *, const void *, size_t, int, void *))dlsym(rt, "cudaMemcpyAsync");
  int (*sync_)(void *) = (int (*)(void *))dlsym(rt, "cudaStreamSynchronize");
  size_t bytes = (1u << 20) * sizeof(float);
  void *d = NULL;
  if (!malloc_ || !host_ || !memset_ || !copy_ || !sync_ || malloc_(&d, bytes) ||
      host_((void **)&pinned, bytes) || memset_(d, 0, bytes) ||
      copy_(pinned, d, bytes, 2, NULL)) {
    fprintf(stderr, "sigprobe: CUDA calls failed\n");
    return 2;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, masked_reader, NULL) || pthread_join(t, NULL))
    return 2;
  sync_(NULL);
  sigset_t segv, cur, pend;
  sigemptyset(&segv);
  sigaddset(&segv, SIGSEGV);
  signal(SIGSEGV, note_segv);
  sigprocmask(SIG_BLOCK, &segv, NULL);
  if (copy_(pinned, d, bytes, 2, NULL))
    return 2;
  double s = pinned_sum();
  raise(SIGSEGV);
  sigpending(&pend);
  sigprocmask(SIG_BLOCK, NULL, &cur);
  printf("main: sum %g, SIGSEGV blocked %d, pending %d, handled %d\n", s,
         sigismember(&cur, SIGSEGV), sigismember(&pend, SIGSEGV), segv_seen);
  sigprocmask(SIG_UNBLOCK, &segv, &cur);
  sigpending(&pend);
  printf("main: unblocked (was %d): pending %d, handled %d\n",
         sigismember(&cur, SIGSEGV), sigismember(&pend, SIGSEGV), segv_seen);
  sync_(NULL);
  return 0;
}

/* ---- handlers installed before the shim started ------------------------------ */
static void reporter(int sig, siginfo_t *si, void *uc)
{
  (void)sig, (void)si, (void)uc;
  say("sigprobe: crash reporter fired\n");
  _exit(3);
}

/* the kernel's struct sigaction on x86-64 and most others */
struct ksigaction {
  void *handler;
  unsigned long flags;
  void *restorer;
  unsigned long mask;
};

/* late: after the shim started, a crash reporter installed with the raw
 * system call, bypassing every wrapper (a runtime with its own system-call
 * layer) */
static void raw_reporter(void)
{
  struct ksigaction k = {(void *)reporter, SA_SIGINFO | SA_RESETHAND, NULL, 0};
  syscall(SYS_rt_sigaction, SIGSEGV, &k, NULL, sizeof k.mask);
}

static int early(int late, int mid)
{
  show("early SIGSEGV", SIGSEGV);
  show("early SIGTERM", SIGTERM);
  if (late) /* nothing of the shim's runs between this and the fault */
    raw_reporter();
  int (*host_)(void **, size_t) =
      (int (*)(void **, size_t))dlsym(rt, "cudaMallocHost");
  int (*malloc_)(void **, size_t) =
      (int (*)(void **, size_t))dlsym(rt, "cudaMalloc");
  int (*copy_)(void *, const void *, size_t, int, void *) =
      (int (*)(void *, const void *, size_t, int, void *))dlsym(rt, "cudaMemcpyAsync");
  int (*sync_)(void *) = (int (*)(void *))dlsym(rt, "cudaStreamSynchronize");
  size_t bytes = (1u << 20) * sizeof(float);
  void *d = NULL;
  if (!malloc_ || !host_ || !copy_ || !sync_ || malloc_(&d, bytes) ||
      host_((void **)&pinned, bytes))
    return 2;
  if (mid) { /* a first copy in flight: the shim protected pages already */
    void *first = NULL;
    if (host_(&first, bytes) || copy_(first, d, bytes, 2, NULL))
      return 2;
    raw_reporter();
  }
  if (copy_(pinned, d, bytes, 2, NULL))
    return 2;
  double s = pinned_sum(); /* the copy is still in flight */
  sync_(NULL);
  printf("early: sum %g\n", s);
  show("early SIGSEGV at the end", SIGSEGV);
  return 0;
}

/* ---- a small alternate signal stack ------------------------------------------ */
static char *own_page;   /* the program's own PROT_NONE page */
static volatile sig_atomic_t own_faults;
static volatile size_t alt_free; /* what the handler leaves unused */

static void use_stack(size_t n)
{
  volatile char use[n + 1];
  for (size_t i = 0; i < n; i += 64)
    use[i] = (char)i;
  use[n] = 0;
  (void)use[0];
}

/* Uses all of the stack below the kernel's frame (where uc is) but
 * alt_free bytes and 256 for its own frames (well under 256 natively on
 * x86-64): a native run has a few hundred bytes to spare, fewer than the
 * 544 that the shim's dispatcher took there. */
static void small_handler(int sig, siginfo_t *si, void *uc)
{
  (void)sig;
  size_t below = (size_t)((char *)uc - alt_lo);
  if (below > alt_free + 256)
    use_stack(below - alt_free - 256);
  if ((char *)si->si_addr >= own_page && (char *)si->si_addr < own_page + 4096)
    mprotect(own_page, 4096, PROT_READ | PROT_WRITE);
  own_faults++;
}

static int altstack(void)
{
  long min = sysconf(_SC_MINSIGSTKSZ);
  size_t page = 4096, size = (size_t)(min > 0 ? min : 2048) + 1024;
  size = (size + page - 1) / page * page;
  size_t span = size;
  /* whole pages, a guard page below: an overflow faults instead of
   * writing the heap */
  char *m = mmap(NULL, span + page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || mprotect(m, page, PROT_NONE))
    return 2;
  stack_t ss = {.ss_sp = m + page + span - size, .ss_size = size};
  alt_lo = ss.ss_sp;
  alt_free = 128;
  if (sigaltstack(&ss, NULL))
    return 2;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = small_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);
  own_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (int i = 0; i < 3; i++) {
    mprotect(own_page, 4096, PROT_NONE);
    own_page[8] = 1;
  }
  printf("altstack: own faults handled %d\n", (int)own_faults);

  int (*host_)(void **, size_t) =
      (int (*)(void **, size_t))dlsym(rt, "cudaMallocHost");
  int (*malloc_)(void **, size_t) =
      (int (*)(void **, size_t))dlsym(rt, "cudaMalloc");
  int (*copy_)(void *, const void *, size_t, int, void *) =
      (int (*)(void *, const void *, size_t, int, void *))dlsym(rt, "cudaMemcpyAsync");
  int (*sync_)(void *) = (int (*)(void *))dlsym(rt, "cudaStreamSynchronize");
  size_t bytes = (1u << 20) * sizeof(float);
  void *d = NULL;
  if (!malloc_ || !host_ || !copy_ || !sync_ || malloc_(&d, bytes) ||
      host_((void **)&pinned, bytes) || copy_(pinned, d, bytes, 2, NULL))
    return 2;
  double sum = pinned_sum(); /* the copy is still in flight */
  sync_(NULL);
  printf("altstack: sum %g, own faults handled %d\n", sum, (int)own_faults);
  return 0;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "default-signals") && argc > 2) {
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    return 127;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!strcmp(mode, "term"))
    return term();
  cuda_work();
  if (!strcmp(mode, "query"))
    return query();
  if (!strcmp(mode, "resethand") && argc > 2)
    return resethand(argv[2]);
  if (!strcmp(mode, "ign-raise"))
    return ignored(0);
  if (!strcmp(mode, "ign-fault"))
    return ignored(1);
  if (!strcmp(mode, "handlers"))
    return handlers();
  if (!strcmp(mode, "masked"))
    return masked();
  if (!strcmp(mode, "term-twice") && argc > 2)
    return term_twice(atoi(argv[2]));
  if (!strcmp(mode, "altstack"))
    return altstack();
  if (!strcmp(mode, "early"))
    return early(argc > 2 && !strcmp(argv[2], "late"),
                 argc > 2 && !strcmp(argv[2], "mid"));
  fprintf(stderr, "usage: sigprobe query|resethand SEGV|INT|ign-raise|"
                  "ign-fault|handlers|masked|early|altstack|term\n");
  return 64;
}

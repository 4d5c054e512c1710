/* pcsample.c - a sampling profiler small enough to carry to the GPU machine,
 * which has no perf (bench/README.md, "Where a call's time goes"): preloaded
 * beside libcudalens.so, it samples the program counter of the thread that
 * is running whenever the process has used 1/PCSAMPLE_HZ s more CPU time
 * (ITIMER_PROF: every thread's time, the writer's and CUPTI's too) and, at
 * exit, writes to PCSAMPLE_OUT one line per sampled address:
 *
 *     COUNT OBJECT VADDR TID    (VADDR: the address in OBJECT's ELF file;
 *                                TID: the thread that was there)
 *
 * (`COUNT ? 0 TID` for addresses in no loaded object), then one line per
 * thread sampled, `# thread TID NAME` (its name then, or ? once gone).
 * The kernel checks the timer at its ticks: at most one sample a tick (250
 * a second on these machines), whatever PCSAMPLE_HZ asks.
 *
 * PCSAMPLE_DELAY=S starts sampling S seconds after the program starts and
 * PCSAMPLE_SECONDS=W stops it W seconds later (a thread of the sampler's,
 * "pcsample", waits for both), so that a window inside a benchmark's
 * steady state is sampled alone.  A thread that blocks SIGPROF
 * (libcudalens's writer blocks every signal) is never sampled: the signal
 * of a tick it spent goes to another thread, at whatever that one was
 * doing; with a window, mostly to "pcsample", asleep in clock_nanosleep
 * (presumably so: 5% of a PyTorch run's samples under libcudalens on the
 * H100 machine, none without the shim).
 *
 * bench/pcsample.sh builds it, runs a command under it and turns the
 * lines into counts per function and source line.  A benchmark's tool, never shipped: SIGPROF
 * interrupts the program's system calls (a handler installed with
 * SA_RESTART restarts most of them; some, like nanosleep, return EINTR),
 * and a program that uses SIGPROF or ITIMER_PROF itself is measured wrong. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_SAMPLES (8u << 20) /* 128 MiB of address space, touched as used */

struct sample {
  uintptr_t pc;
  uint32_t tid;
};
static struct sample *samples;
static _Atomic unsigned nsamples;
static _Atomic unsigned lost;

static void on_prof(int sig, siginfo_t *si, void *ctx)
{
  (void)sig, (void)si;
  const ucontext_t *uc = ctx;
#if defined(__x86_64__)
  uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  uintptr_t pc = (uintptr_t)uc->uc_mcontext.pc;
#else
  uintptr_t pc = 0;
#endif
  unsigned i = atomic_fetch_add_explicit(&nsamples, 1, memory_order_relaxed);
  if (i < MAX_SAMPLES)
    samples[i] = (struct sample){pc, (uint32_t)syscall(SYS_gettid)};
  else
    atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
}

static struct itimerval every;  /* the sampling period */
static double delay, seconds;    /* PCSAMPLE_DELAY, PCSAMPLE_SECONDS */

static void sleep_s(double s)
{
  struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts))
    ;
}

static void *window(void *arg)
{
  (void)arg;
  pthread_setname_np(pthread_self(), "pcsample");
  sleep_s(delay);
  setitimer(ITIMER_PROF, &every, NULL);
  if (seconds > 0) {
    sleep_s(seconds);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
  }
  return NULL;
}

__attribute__((constructor)) static void start(void)
{
  const char *hz = getenv("PCSAMPLE_HZ");
  long rate = hz ? strtol(hz, NULL, 10) : 2000;
  if (rate <= 0 || rate > 100000 || !getenv("PCSAMPLE_OUT"))
    return;
  void *m = mmap(NULL, MAX_SAMPLES * sizeof *samples, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return;
  samples = m;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_prof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGPROF, &sa, NULL))
    return;
  long us = 1000000 / rate;
  every = (struct itimerval){{0, us ? us : 1}, {0, us ? us : 1}};
  const char *d = getenv("PCSAMPLE_DELAY"), *w = getenv("PCSAMPLE_SECONDS");
  delay = d ? strtod(d, NULL) : 0;
  seconds = w ? strtod(w, NULL) : 0;
  pthread_t t;
  if (delay <= 0 && seconds <= 0)
    setitimer(ITIMER_PROF, &every, NULL);
  else if (!pthread_create(&t, NULL, window, NULL))
    pthread_detach(t);
}

/* ---- at exit: the samples by object -------------------------------------- */
static int by_pc_tid(const void *a, const void *b)
{
  const struct sample *x = a, *y = b;
  if (x->pc != y->pc)
    return x->pc < y->pc ? -1 : 1;
  return (x->tid > y->tid) - (x->tid < y->tid);
}

static int by_tid(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

struct where {
  uintptr_t pc, vaddr;
  const char *object;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  struct where *w = arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && w->pc >= lo && w->pc < lo + ph->p_memsz) {
      w->vaddr = w->pc - info->dlpi_addr;
      w->object = info->dlpi_name && *info->dlpi_name ? info->dlpi_name
                                                      : "/proc/self/exe";
      return 1;
    }
  }
  return 0;
}

__attribute__((destructor)) static void finish(void)
{
  if (!samples)
    return;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  signal(SIGPROF, SIG_IGN);
  unsigned n = atomic_load(&nsamples);
  if (n > MAX_SAMPLES)
    n = MAX_SAMPLES;
  FILE *f = fopen(getenv("PCSAMPLE_OUT"), "w");
  struct sample *c = malloc((n ? n : 1) * sizeof *c);
  uint32_t *tids = malloc((n ? n : 1) * sizeof *tids);
  if (!f || !c || !tids) {
    fprintf(stderr, "pcsample: cannot write %s\n", getenv("PCSAMPLE_OUT"));
    if (f)
      fclose(f);
    free(c);
    free(tids);
    return;
  }
  memcpy(c, samples, n * sizeof *c);
  qsort(c, n, sizeof *c, by_pc_tid);
  for (unsigned i = 0; i < n;) {
    unsigned j = i + 1;
    while (j < n && c[j].pc == c[i].pc && c[j].tid == c[i].tid)
      j++;
    struct where w = {c[i].pc, 0, NULL};
    dl_iterate_phdr(find_object, &w);
    if (w.object)
      fprintf(f, "%u %s %#lx %u\n", j - i, w.object, (unsigned long)w.vaddr,
              c[i].tid);
    else
      fprintf(f, "%u ? 0 %u\n", j - i, c[i].tid);
    i = j;
  }
  for (unsigned i = 0; i < n; i++)
    tids[i] = c[i].tid;
  qsort(tids, n, sizeof *tids, by_tid);
  for (unsigned i = 0; i < n; i++) {
    if (i && tids[i] == tids[i - 1])
      continue;
    char path[64], name[64] = "?";
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", tids[i]);
    FILE *cf = fopen(path, "r");
    if (cf) {
      if (fgets(name, sizeof name, cf))
        name[strcspn(name, "\n")] = 0;
      fclose(cf);
    }
    for (char *q = name; *q; q++)
      if (*q == ' ')
        *q = '_';
    fprintf(f, "# thread %u %s\n", tids[i], *name ? name : "?");
  }
  fprintf(stderr, "pcsample: %u samples (%u lost) to %s\n", n,
          atomic_load(&lost), getenv("PCSAMPLE_OUT"));
  fclose(f);
  free(c);
  free(tids);
}

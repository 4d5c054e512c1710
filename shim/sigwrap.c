/* sigwrap.c - the signals the shim handles itself, kept invisible to the
 * program.  Two users take signals over: the fatal-signal flush (signals.c)
 * takes each fatal signal whose action is the default one, and the host-access
 * check (hostguard.c) takes SIGSEGV for good (and SIGTRAP, for the single
 * steps over accesses to protected pages that are not its business).  For
 * such a signal the kernel runs dispatch() (on x86-64 cl_sig_entry, which
 * runs the shim's part on a stack of its own and then the program's handler
 * where the kernel put the signal's frame: nothing of an alternate signal
 * stack is the shim's), and the program sees and gets what it would without
 * the
 * shim: sigaction() and the other exported wrappers report and change the
 * program's view (SIG_DFL while only the shim is there), and dispatch()
 * carries out that view exactly: the default action (after the flush), SIG_IGN,
 * or the program's handler with its sa_flags and sa_mask (SA_SIGINFO,
 * SA_RESETHAND, SA_NODEFER, SA_ONSTACK and SA_RESTART are applied by the
 * kernel itself, through the flags the dispatcher is installed with, or
 * emulated).  A fatal signal the program installs a handler for is given to
 * it outright (the kernel runs its handler), and taken back when the program
 * restores SIG_DFL.  Signals nobody took go straight to the C library.
 *
 * While the host-access check keeps SIGSEGV, it is never blocked for real:
 * the kernel kills a thread that faults with SIGSEGV blocked, whatever the
 * handler, so a thread that blocked every signal (a thread pool routing
 * signals elsewhere) would die on its first access to a protected page.
 * pthread_sigmask() and sigprocmask() keep SIGSEGV out of the kernel's mask
 * and remember, per thread, whether the program asked for it blocked: they
 * report that, and a SIGSEGV sent to the thread (raise, kill: never a fault)
 * while the program has it blocked waits until the program unblocks it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "sigwrap.h"

/* what the shim does with one signal; changed under the table lock */
struct slot {
  unsigned char owned;       /* dispatch() is the kernel's action now */
  unsigned char keep;        /* stays owned whatever the program installs */
  unsigned char flush;       /* flush before the default action kills */
  struct sigaction view;     /* the action the program would read back */
};
static struct slot slots[NSIG];
static _Atomic unsigned char managed[NSIG]; /* taken by keep or flush */
static int (*fault_handler)(int, siginfo_t *, void *);
static int (*trap_handler)(int, siginfo_t *, void *);
static void (*before_death)(int);
/* siginterrupt() state, as the C library keeps it for signal() */
static _Atomic unsigned char no_restart[NSIG];

/* the real functions (deprecated in the C library's headers: named by type) */
typedef sighandler_t (*handler_fn)(int, sighandler_t);
typedef int (*int_fn)(int, int);
typedef int (*sig_fn)(int);

/* each looked up once, by one expansion of CL_REAL */
typedef int (*sa_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);
static sa_fn sa_real(void) { return CL_REAL_AS(sa_fn, sigaction); }
static mask_fn mask_real(void) { return CL_REAL_AS(mask_fn, pthread_sigmask); }

static int real_sigaction(int sig, const struct sigaction *act,
                          struct sigaction *old)
{
  return sa_real()(sig, act, old);
}

static int real_mask(int how, const sigset_t *set, sigset_t *old)
{
  return mask_real()(how, set, old);
}

/* SIGSEGV kept by the host-access check: never blocked for real */
static _Atomic int segv_kept;
static __thread unsigned char segv_blocked; /* as the program asked */
static __thread unsigned char segv_held;    /* a sent SIGSEGV waits */
static __thread siginfo_t segv_held_info;

/* ---- the table: a sequence lock, signal-safe for readers ------------------
 * Writers block every signal while they hold it, so a handler never waits
 * for its own thread. */
static _Atomic unsigned table_gen;
static sigset_t fork_mask; /* the forking thread's mask, across fork */

static void table_lock(sigset_t *saved)
{
  sigset_t all;
  sigfillset(&all);
  real_mask(SIG_SETMASK, &all, saved);
  for (;;) {
    unsigned g = atomic_load_explicit(&table_gen, memory_order_relaxed);
    if (!(g & 1) &&
        atomic_compare_exchange_weak_explicit(&table_gen, &g, g + 1,
                                              memory_order_acquire,
                                              memory_order_relaxed))
      return;
    sched_yield();
  }
}

static void table_unlock(const sigset_t *saved)
{
  atomic_fetch_add_explicit(&table_gen, 1, memory_order_release);
  real_mask(SIG_SETMASK, saved, NULL);
}

static struct slot slot_read(int sig)
{
  for (;;) {
    unsigned g = atomic_load_explicit(&table_gen, memory_order_acquire);
    if (g & 1) {
      sched_yield();
      continue;
    }
    struct slot s = slots[sig];
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&table_gen, memory_order_relaxed) == g)
      return s;
  }
}

void cl_sigwrap_atfork_prepare(void)
{
  sigset_t saved;
  table_lock(&saved);
  fork_mask = saved;
}
void cl_sigwrap_atfork_parent(void) { table_unlock(&fork_mask); }
void cl_sigwrap_atfork_child(void) { table_unlock(&fork_mask); }

/* ---- installing ------------------------------------------------------------ */
static void dispatch(int sig, siginfo_t *si, void *uc);
void cl_sig_entry(int sig, siginfo_t *si, void *uc) CL_HIDDEN;
static void (*action(void))(int, siginfo_t *, void *);

/* Make dispatch() the kernel's action for sig, applying what the program
 * asked for in act (mask and flags, but SA_RESETHAND, which dispatch()
 * emulates), and set the view to what the program would read back then
 * (or to *as_is, the action found when the shim took the signal over);
 * table locked. */
static int own(int sig, struct slot *s, const struct sigaction *act,
               const struct sigaction *as_is)
{
  struct sigaction sa = *act, back;
  sa.sa_sigaction = action();
  sa.sa_flags = (act->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
  /* the host-access check's SIGSEGV is never blocked while the shim's part
   * of dispatch() runs: a handler of the program run inside it (a signal
   * arriving then) may touch a protected page, and the kernel kills a
   * thread that faults with SIGSEGV blocked; dispatch() blocks it before it
   * calls the program's handler, as the kernel would have */
  int segv = sig == SIGSEGV && fault_handler;
  if (segv) {
    sa.sa_flags |= SA_NODEFER;
    sigdelset(&sa.sa_mask, SIGSEGV);
  }
  if (real_sigaction(sig, &sa, NULL))
    return -1;
  if (as_is) {
    back = *as_is;
  } else {
    /* the kernel's (and the C library's) reading of mask and flags */
    if (real_sigaction(sig, NULL, &back))
      back = sa;
    back.sa_handler = act->sa_handler;
    back.sa_flags = (back.sa_flags & ~(SA_SIGINFO | SA_RESETHAND)) |
                    (act->sa_flags & (SA_SIGINFO | SA_RESETHAND));
    if (segv) { /* as the program asked */
      back.sa_flags = (back.sa_flags & ~SA_NODEFER) | (act->sa_flags & SA_NODEFER);
      if (sigismember(&act->sa_mask, SIGSEGV) == 1)
        sigaddset(&back.sa_mask, SIGSEGV);
    }
  }
  s->view = back;
  s->owned = 1;
  return 0;
}

static int is_dispatch(const struct sigaction *sa)
{
  return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == action();
}

/* An owned signal whose kernel action is no longer dispatch(): the program
 * set it behind the wrappers (the raw system call, a C library of its own).
 * What it set is its view, as natively; a signal kept for good becomes the
 * shim's again, one taken for the flush is the program's now.  Table
 * locked. */
static void relearn(int sig, struct slot *s)
{
  struct sigaction cur;
  if (!s->owned || real_sigaction(sig, NULL, &cur) || is_dispatch(&cur))
    return;
  if (s->keep) {
    own(sig, s, &cur, &cur);
  } else {
    s->owned = 0;
    s->view = cur;
  }
}

/* Take sig over: for good (keep), or while the program leaves the default
 * action (flush); 0 when taken. */
static int take(int sig, int keep, int flush)
{
  if (sig <= 0 || sig >= NSIG)
    return -1;
  sigset_t saved;
  table_lock(&saved);
  struct slot *s = &slots[sig];
  int r = 0;
  if (!s->owned) {
    struct sigaction cur;
    r = real_sigaction(sig, NULL, &cur);
    if (!r && (keep || (cur.sa_handler == SIG_DFL &&
                        !(cur.sa_flags & SA_SIGINFO))))
      r = own(sig, s, &cur, &cur);
    else if (!r)
      r = -1; /* the program handles it: leave it alone */
  } else if (keep && sig == SIGSEGV && fault_handler) {
    r = own(sig, s, &s->view, &s->view); /* taken for the flush: see own() */
  }
  if (!r) {
    s->keep |= keep;
    s->flush |= flush;
    atomic_store(&managed[sig], 1);
  }
  table_unlock(&saved);
  return r;
}

static int procmask_of(int how, const sigset_t *set, sigset_t *old);

int cl_sigwrap_install(int (*handler)(int, siginfo_t *, void *))
{
  fault_handler = handler; /* before it can run */
  int r = take(SIGSEGV, 1, 0);
  if (!r) {
    sigset_t segv;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    sigset_t old;
    if (!real_mask(SIG_UNBLOCK, &segv, &old) && sigismember(&old, SIGSEGV))
      segv_blocked = 1; /* inherited blocked: the program's view stays */
    sigset_t none; /* the real functions looked up now, not in a handler */
    procmask_of(SIG_BLOCK, NULL, &none);
    sigpending(&none);
    atomic_store(&segv_kept, 1);
  }
  return r;
}

/* The kernel's action for SIGSEGV is dispatch() again, and the program's
 * view what it set, when the program set one behind the wrappers (the raw
 * rt_sigaction system call, a C library of its own): called before the
 * host-access check protects pages, so that a fault of the shim's never
 * reaches a handler the shim has not seen. */
void cl_sigwrap_reclaim(void)
{
  struct sigaction cur;
  if (!atomic_load_explicit(&segv_kept, memory_order_relaxed) ||
      real_sigaction(SIGSEGV, NULL, &cur) || is_dispatch(&cur))
    return;
  sigset_t saved;
  table_lock(&saved);
  relearn(SIGSEGV, &slots[SIGSEGV]);
  table_unlock(&saved);
}

int cl_sigwrap_install_trap(int (*handler)(int, siginfo_t *, void *))
{
  trap_handler = handler; /* before it can run */
  int r = take(SIGTRAP, 1, 0);
  if (r)
    trap_handler = NULL;
  return r;
}

int cl_sigwrap_flush_on(int sig, void (*flush)(int))
{
  before_death = flush;
  return take(sig, 0, 1);
}

/* ---- delivery -------------------------------------------------------------- */
/* A fault the kernel forces: it kills whatever the action unless handled. */
static int forced(int sig, const siginfo_t *si)
{
  return si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS ||
                             sig == SIGFPE || sig == SIGILL || sig == SIGTRAP);
}

/* The default action (all the signals taken end the process): the flush,
 * then the same signal, with the same siginfo, is delivered again to the
 * default action once this handler returns. */
static void die(int sig, siginfo_t *si, int flush)
{
  if (!forced(sig, si) && getpid() == 1)
    return; /* the init of a PID namespace ignores such signals */
  sigset_t all;
  sigfillset(&all);
  real_mask(SIG_BLOCK, &all, NULL);
  if (flush && before_death)
    before_death(sig);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  real_sigaction(sig, &dfl, NULL);
  if (syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid),
              sig, si))
    raise(sig);
  /* when this handler returns, the mask of the interrupted code comes back
   * and the pending signal kills the process there */
}

static void reset_view(int sig)
{
  sigset_t saved;
  table_lock(&saved);
  slots[sig].view.sa_handler = SIG_DFL; /* as the kernel does: flags stay */
  table_unlock(&saved);
}

/* The shim's part of a signal taken over, and what is to run in its place:
 * the program's handler, returned for the caller to run (on the stack and
 * in the signal frame the kernel chose, as natively), with *info set when
 * it takes three arguments; NULL when nothing more is to run.  after: the
 * signal mask of this handler's frame, which the caller puts in place
 * (NULL: changed here, for real). */
CL_HIDDEN void *
cl_sig_decide(int sig, siginfo_t *si, void *uc, sigset_t *after, int *info)
{
  int saved = errno;
  if (sig == SIGSEGV && segv_blocked && !forced(sig, si)) {
    if (!segv_held) { /* pending, as the kernel keeps it: once */
      segv_held_info = *si;
      segv_held = 1;
    }
    errno = saved;
    return NULL;
  }
  if (sig == SIGSEGV && fault_handler && fault_handler(sig, si, uc)) {
    errno = saved;
    return NULL; /* the shim's own fault: the access runs again, now allowed */
  }
  if (sig == SIGTRAP && trap_handler && trap_handler(sig, si, uc)) {
    errno = saved;
    return NULL; /* the end of the shim's own single step */
  }
  struct slot s = slot_read(sig);
  void (*h)(int) = s.view.sa_handler;
  if (h == SIG_IGN && !forced(sig, si)) {
    errno = saved;
    return NULL;
  }
  if (h == SIG_IGN || h == SIG_DFL) {
    die(sig, si, s.flush);
    if (after)
      sigfillset(after); /* until this handler returns (see die()) */
    errno = saved;
    return NULL;
  }
  if (s.view.sa_flags & SA_RESETHAND)
    reset_view(sig);
  if (sig == SIGSEGV && fault_handler &&
      (!(s.view.sa_flags & SA_NODEFER) ||
       sigismember(&s.view.sa_mask, SIGSEGV) == 1)) {
    /* see own(): as the kernel would have, for the handler */
    if (after) {
      sigaddset(after, SIGSEGV);
    } else {
      sigset_t one;
      sigemptyset(&one);
      sigaddset(&one, SIGSEGV);
      real_mask(SIG_BLOCK, &one, NULL);
    }
  }
  errno = saved; /* the program's handler sees, and may change, errno */
  if (info)
    *info = (s.view.sa_flags & SA_SIGINFO) != 0;
  return s.view.sa_flags & SA_SIGINFO ? (void *)s.view.sa_sigaction
                                      : (void *)h;
}

/* The kernel's action, where no stack of the shim's is used (see below):
 * all of it on the stack the kernel chose. */
__attribute__((unused)) static void dispatch(int sig, siginfo_t *si, void *uc)
{
  int info = 0;
  void *h = cl_sig_decide(sig, si, uc, NULL, &info);
  if (h && info)
    ((void (*)(int, siginfo_t *, void *))h)(sig, si, uc);
  else if (h)
    ((void (*)(int))h)(sig);
}

#if defined(__x86_64__) && defined(__linux__)
/* ---- the shim's own signal stacks (issue 24, defect 3) ---------------------
 * A signal the program delivers on its alternate stack (SA_ONSTACK) gets
 * nothing of that stack from the shim: the kernel's action is the
 * trampoline cl_sig_entry, which takes one of STACKS stacks of the shim's
 * (a bit of busy, taken atomically), blocks the asynchronous signals (one
 * delivered on the program's alternate stack while the shim's part runs on
 * its own would be put at that stack's top, over this signal's frame),
 * runs cl_sig_decide there, then goes back to the kernel's stack, puts the
 * handler's mask in place and jumps to the program's handler, which so runs
 * where the kernel would have run it, returning to the kernel's restorer.
 * With every stack busy (STACKS signals in progress at once), the shim's
 * part runs on the kernel's stack, as dispatch() does.  Unwinding (the host
 * check's call stacks) goes from the shim's stack back to the signal frame
 * through the CFI below: the frame's CFA is the saved stack pointer + 8. */
#define STACKS 32
#define STACK_SHIFT 16 /* 64 KiB each */
CL_HIDDEN char *cl_sig_stacks;
CL_HIDDEN _Atomic unsigned cl_sig_busy;
/* every signal but the synchronous ones (a fault of the shim's own code
 * must not be blocked: the kernel would kill) and SIGKILL, SIGSTOP */
CL_HIDDEN const unsigned long cl_sig_block =
    ~((1ul << (SIGSEGV - 1)) | (1ul << (SIGBUS - 1)) | (1ul << (SIGFPE - 1)) |
      (1ul << (SIGILL - 1)) | (1ul << (SIGTRAP - 1)) | (1ul << (SIGKILL - 1)) |
      (1ul << (SIGSTOP - 1)));
void cl_sig_entry(int sig, siginfo_t *si, void *uc) CL_HIDDEN;
/* frame on the shim's stack (rsp): 0 the mask (a sigset_t), 136 uc, 144
 * si, 152 sig, 160 the stack's number, 168 the kernel's stack pointer */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl cl_sig_entry\n"
        ".hidden cl_sig_entry\n"
        ".type cl_sig_entry, @function\n"
        "cl_sig_entry:\n"
        ".cfi_startproc\n"
        "  movq cl_sig_stacks(%rip), %r8\n"
        "  testq %r8, %r8\n"
        "  jz 9f\n"
        "1:\n"
        "  movl cl_sig_busy(%rip), %ecx\n"
        "  notl %ecx\n"
        "  testl %ecx, %ecx\n"
        "  jz 9f\n"
        "  bsfl %ecx, %ecx\n"
        "  lock btsl %ecx, cl_sig_busy(%rip)\n"
        "  jc 1b\n"
        "  leaq 1(%rcx), %r9\n"
        "  shlq $16, %r9\n"
        "  addq %r8, %r9\n"
        "  leaq -176(%r9), %r9\n"
        "  movq %rsp, 168(%r9)\n"
        "  movq %rcx, 160(%r9)\n"
        "  movq %rdi, 152(%r9)\n"
        "  movq %rsi, 144(%r9)\n"
        "  movq %rdx, 136(%r9)\n"
        "  movl $14, %eax\n"             /* rt_sigprocmask(SIG_BLOCK, */
        "  xorl %edi, %edi\n"
        "  leaq cl_sig_block(%rip), %rsi\n" /* &cl_sig_block, */
        "  movq %r9, %rdx\n"             /* the frame's mask, 8) */
        "  movl $8, %r10d\n"
        "  syscall\n"
        "  movq %r9, %rsp\n"
        /* CFA = *(rsp + 168) + 8 */
        ".cfi_escape 0x0f,0x06,0x77,0xa8,0x01,0x06,0x23,0x08\n"
        "  movq 152(%rsp), %rdi\n"
        "  movq 144(%rsp), %rsi\n"
        "  movq 136(%rsp), %rdx\n"
        "  movq %rsp, %rcx\n"
        "  xorl %r8d, %r8d\n"
        "  call cl_sig_decide\n"
        "  movq %rax, %r8\n"
        "  movq %rsp, %r9\n"
        "  movq 168(%r9), %rsp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "  movl $14, %eax\n"             /* rt_sigprocmask(SIG_SETMASK, */
        "  movl $2, %edi\n"
        "  movq %r9, %rsi\n"             /* the frame's mask, NULL, 8) */
        "  xorl %edx, %edx\n"
        "  movl $8, %r10d\n"
        "  syscall\n"
        "  movq 152(%r9), %rdi\n"
        "  movq 144(%r9), %rsi\n"
        "  movq 136(%r9), %rdx\n"
        "  movq 160(%r9), %rcx\n"
        "  lock btrl %ecx, cl_sig_busy(%rip)\n"
        "  testq %r8, %r8\n"
        "  jz 2f\n"
        "  jmp *%r8\n"
        "2:\n"
        "  ret\n"
        "9:\n"                          /* no stack free: on this one */
        "  pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "  pushq %rsi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "  pushq %rdx\n"
        ".cfi_adjust_cfa_offset 8\n"
        "  xorl %ecx, %ecx\n"
        "  xorl %r8d, %r8d\n"
        "  call cl_sig_decide\n"
        "  popq %rdx\n"
        ".cfi_adjust_cfa_offset -8\n"
        "  popq %rsi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "  popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "  testq %rax, %rax\n"
        "  jz 3f\n"
        "  jmp *%rax\n"
        "3:\n"
        "  ret\n"
        ".cfi_endproc\n"
        ".size cl_sig_entry, .-cl_sig_entry\n");
_Static_assert(STACKS <= 32 && (1 << STACK_SHIFT) == 65536,
               "cl_sig_entry's bit mask and shift");

static void stacks_init(void)
{
  void *m = mmap(NULL, (size_t)STACKS << STACK_SHIFT, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1,
                 0);
  if (m != MAP_FAILED)
    __atomic_store_n(&cl_sig_stacks, (char *)m, __ATOMIC_RELEASE);
}
#define ACTION ((void (*)(int, siginfo_t *, void *))cl_sig_entry)
#else
static void stacks_init(void) {}
#define ACTION dispatch
#endif

static void (*action(void))(int, siginfo_t *, void *)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, stacks_init);
  return ACTION;
}

/* ---- the program's side ---------------------------------------------------- */
static int is_managed(int sig)
{
  return sig > 0 && sig < NSIG && atomic_load_explicit(&managed[sig],
                                                        memory_order_acquire);
}

static int cl_sigaction(int sig, const struct sigaction *act,
                        struct sigaction *old)
{
  if (sig <= 0 || sig >= NSIG)
    return real_sigaction(sig, act, old);
  /* The real functions are looked up before the table is locked: the first
   * lookup goes through the shim's dlsym(), which may start the shim (CUDA
   * already loaded: a library constructor's sigaction() runs before the
   * shim's own), and the start takes signals over under the lock.  Whether
   * the signal is managed is then decided under the lock, so that a start
   * on this or another thread never overwrites, or is overwritten by, the
   * program's action (issue 24, defect 1). */
  sa_real();
  mask_real();
  struct sigaction want, prev;
  if (act)
    want = *act; /* the program's memory is read with signals unblocked */
  sigset_t saved;
  table_lock(&saved);
  struct slot *s = &slots[sig];
  int r = 0;
  if (!atomic_load_explicit(&managed[sig], memory_order_relaxed)) {
    r = real_sigaction(sig, act ? &want : NULL, &prev);
    table_unlock(&saved);
    if (!r && old)
      *old = prev;
    return r;
  }
  relearn(sig, s);
  if (s->owned)
    prev = s->view;
  else
    r = real_sigaction(sig, NULL, &prev);
  if (!r && act) {
    if (s->keep || (s->flush && want.sa_handler == SIG_DFL)) {
      r = own(sig, s, &want, NULL);
    } else {
      r = real_sigaction(sig, &want, NULL);
      if (!r) {
        s->owned = 0;
        s->view = want; /* for a signal dispatch() got just before */
      }
    }
  }
  table_unlock(&saved);
  if (!r && old)
    *old = prev;
  return r;
}

/* signal(), with the C library's BSD semantics */
static sighandler_t bsd_signal_of(int sig, sighandler_t h)
{
  if (h == SIG_ERR || !is_managed(sig))
    return CL_REAL(signal)(sig, h);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, sig);
  sa.sa_flags = atomic_load(&no_restart[sig]) ? 0 : SA_RESTART;
  if (cl_sigaction(sig, &sa, &old))
    return SIG_ERR;
  return old.sa_handler;
}

static sighandler_t sysv_signal_of(int sig, sighandler_t h)
{
  if (h == SIG_ERR || !is_managed(sig))
    return CL_REAL(sysv_signal)(sig, h);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_NODEFER;
  if (cl_sigaction(sig, &sa, &old))
    return SIG_ERR;
  return old.sa_handler;
}

static int siginterrupt_of(int sig, int flag)
{
  if (sig > 0 && sig < NSIG)
    atomic_store(&no_restart[sig], flag != 0);
  if (!is_managed(sig))
    return CL_REAL_AS(int_fn, siginterrupt)(sig, flag);
  struct sigaction sa;
  if (cl_sigaction(sig, NULL, &sa))
    return -1;
  if (flag)
    sa.sa_flags &= ~SA_RESTART;
  else
    sa.sa_flags |= SA_RESTART;
  return cl_sigaction(sig, &sa, NULL);
}

static sighandler_t sigset_of(int sig, sighandler_t h)
{
  if (!is_managed(sig))
    return CL_REAL_AS(handler_fn, sigset)(sig, h);
  sigset_t one, old;
  sigemptyset(&one);
  sigaddset(&one, sig);
  struct sigaction sa, prev;
  if (h == SIG_HOLD) {
    if (sigprocmask(SIG_BLOCK, &one, &old) < 0)
      return SIG_ERR;
    if (sigismember(&old, sig))
      return SIG_HOLD;
    if (cl_sigaction(sig, NULL, &prev) < 0)
      return SIG_ERR;
    return prev.sa_handler;
  }
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sigemptyset(&sa.sa_mask);
  if (cl_sigaction(sig, &sa, &prev) < 0)
    return SIG_ERR;
  if (sigprocmask(SIG_UNBLOCK, &one, &old) < 0)
    return SIG_ERR;
  return sigismember(&old, sig) ? SIG_HOLD : prev.sa_handler;
}

static int sigignore_of(int sig)
{
  if (!is_managed(sig))
    return CL_REAL_AS(sig_fn, sigignore)(sig);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigemptyset(&sa.sa_mask);
  return cl_sigaction(sig, &sa, NULL);
}

/* the signal masks, SIGSEGV kept unblocked (see the top) */
static int mask_of(mask_fn real, int how, const sigset_t *set, sigset_t *old)
{
  if (!atomic_load_explicit(&segv_kept, memory_order_relaxed))
    return real(how, set, old);
  int was = segv_blocked, now = was;
  sigset_t s;
  if (set) {
    s = *set; /* the program's memory is read with signals unblocked */
    int in = sigismember(&s, SIGSEGV) == 1;
    if (how == SIG_BLOCK)
      now = was || in;
    else if (how == SIG_UNBLOCK)
      now = was && !in;
    else if (how == SIG_SETMASK)
      now = in;
    if (how != SIG_UNBLOCK)
      sigdelset(&s, SIGSEGV);
    set = &s;
  }
  int r = real(how, set, old);
  if (r)
    return r;
  if (old && was)
    sigaddset(old, SIGSEGV);
  segv_blocked = (unsigned char)now;
  if (!now && segv_held) { /* unblocked: delivered now, as natively */
    segv_held = 0;
    siginfo_t si = segv_held_info;
    if (syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid),
                SIGSEGV, &si))
      raise(SIGSEGV);
  }
  return 0;
}

static int procmask_of(int how, const sigset_t *set, sigset_t *old)
{
  return CL_REAL_AS(mask_fn, sigprocmask)(how, set, old);
}

/* ---- the wrappers the shim exports on purpose ------------------------------ */
CL_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
  return mask_of(real_mask, how, set, old);
}
CL_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
  return mask_of(procmask_of, how, set, old);
}
CL_EXPORT int sigpending(sigset_t *set)
{
  int r = CL_REAL(sigpending)(set);
  if (!r && segv_held)
    sigaddset(set, SIGSEGV);
  return r;
}
CL_EXPORT int sigaction(int sig, const struct sigaction *act,
                     struct sigaction *old)
{
  return cl_sigaction(sig, act, old);
}
CL_EXPORT int __sigaction(int sig, const struct sigaction *act,
                       struct sigaction *old)
{
  return cl_sigaction(sig, act, old);
}
CL_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
  return bsd_signal_of(sig, h);
}
CL_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
  return bsd_signal_of(sig, h);
}
CL_EXPORT sighandler_t ssignal(int sig, sighandler_t h)
{
  return bsd_signal_of(sig, h);
}
CL_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
  return sysv_signal_of(sig, h);
}
CL_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t h)
{
  return sysv_signal_of(sig, h);
}
CL_EXPORT int siginterrupt(int sig, int flag)
{
  return siginterrupt_of(sig, flag);
}
CL_EXPORT sighandler_t sigset(int sig, sighandler_t h)
{
  return sigset_of(sig, h);
}
CL_EXPORT int sigignore(int sig) { return sigignore_of(sig); }

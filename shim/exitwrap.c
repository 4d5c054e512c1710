/* exitwrap.c - the ends of a process that exit(3) does not see: _exit() and
 * _Exit() (wrapped), quick_exit() (a handler of its own) and the exec family
 * (wrapped: execve, execv, execvp, execvpe, execl, execle, execlp,
 * fexecve).  Before the process image goes, the writer writes out what the
 * threads recorded; before an exec also what CUPTI still holds, and the
 * recording is closed complete (an exec that fails reopens it).  A process
 * that records nothing, a vfork child among them, goes straight to the real
 * exec function, looked up on the wrapper's first call (REAL below), not
 * when the library is loaded: a process that never execs pays nothing for
 * it (issue 24, item 10); _exit and _Exit end with the system call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cupti.h"
#include "cupti_activity.h"
#include "writer.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

/* The real function, looked up on the wrapper's first call as CL_REAL
 * (shim.h) does for the syscall and signal wrappers, with its guarantee:
 * through the C library's dlsym, never the shim's own hook (dlreal.c binds
 * it lock-free), so a first call from a signal handler or a vfork child
 * finds it too (a lookup that succeeds takes and releases the loader's
 * recursive lock, nothing of the shim's; a vfork child's store is its
 * parent's, which then finds it bound; tests/capture/firstcall.test).  The
 * name in RELRO (CL_STARTUP_STR): a shell's child that execs looks it up
 * and faults no page of .rodata for it. */
#define REAL(type, name) CL_REAL_NAMED(type, CL_STARTUP_STR(#name))

static void on_quick_exit(void) { cl_writer_end("quick_exit", 0); }

#ifdef __GLIBC__
/* at_quick_exit(3) is a stub of glibc's libc_nonshared.a, which the linker
 * puts after all the shim's code: a window of code of its own for the
 * kernel's fault-around, in every process.  This does what the stub does
 * (glibc's stdlib/at_quick_exit.c), beside the start-up code. */
extern int __cxa_at_quick_exit(void (*func)(void *), void *arg, void *dso);
extern void *__dso_handle CL_HIDDEN;
static void on_quick_exit_arg(void *unused)
{
  (void)unused;
  on_quick_exit();
}
#define CL_AT_QUICK_EXIT(f) __cxa_at_quick_exit(f##_arg, NULL, __dso_handle)
#else
#define CL_AT_QUICK_EXIT(f) at_quick_exit(f)
#endif

/* at_quick_exit's registration stays at load time: it runs after the
 * handlers the program registers (quick_exit runs them in reverse) */
__attribute__((constructor)) static void quick_exit_handler(void)
{
  CL_AT_QUICK_EXIT(on_quick_exit);
}

/* ---- exec ------------------------------------------------------------------- */
static int before_exec(void)
{
  if (!cl_writer_recording_here())
    return 0;
  if (cl_cupti.cuptiActivityFlushAll)
    cl_activity_flush(1);
  return cl_writer_suspend();
}

static int after_exec(int suspended, int r)
{
  int err = errno;
  cl_writer_resume(suspended);
  errno = err;
  return r;
}

static int no_function(void)
{
  errno = ENOSYS;
  return -1;
}

CL_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
  execve_fn f = REAL(execve_fn, execve);
  int s = before_exec();
  return after_exec(s, f ? f(path, argv, envp) : no_function());
}

CL_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
  execve_fn f = REAL(execve_fn, execvpe);
  int s = before_exec();
  return after_exec(s, f ? f(file, argv, envp) : no_function());
}

CL_EXPORT int execv(const char *path, char *const argv[])
{
  execv_fn f = REAL(execv_fn, execv);
  int s = before_exec();
  return after_exec(s, f ? f(path, argv) : no_function());
}

CL_EXPORT int execvp(const char *file, char *const argv[])
{
  execv_fn f = REAL(execv_fn, execvp);
  int s = before_exec();
  return after_exec(s, f ? f(file, argv) : no_function());
}

CL_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
  fexecve_fn f = REAL(fexecve_fn, fexecve);
  int s = before_exec();
  return after_exec(s, f ? f(fd, argv, envp) : no_function());
}

/* The list forms collect their arguments as glibc does and call the vector
 * forms above.  With envp, the environment follows the terminating NULL. */
#define CL_COLLECT_ARGS(arg0, ap, argv, envp_out)                              \
  size_t n_ = 1;                                                               \
  va_start(ap, arg0);                                                          \
  while (va_arg(ap, const char *))                                             \
    n_++;                                                                      \
  va_end(ap);                                                                  \
  char *argv[n_ + 1];                                                          \
  argv[0] = (char *)arg0;                                                      \
  va_start(ap, arg0);                                                          \
  for (size_t i_ = 1; i_ <= n_; i_++)                                          \
    argv[i_] = va_arg(ap, char *);                                             \
  envp_out;                                                                    \
  va_end(ap)

CL_EXPORT int execl(const char *path, const char *arg, ...)
{
  va_list ap;
  CL_COLLECT_ARGS(arg, ap, argv, (void)0);
  return execv(path, argv);
}

CL_EXPORT int execlp(const char *file, const char *arg, ...)
{
  va_list ap;
  CL_COLLECT_ARGS(arg, ap, argv, (void)0);
  return execvp(file, argv);
}

CL_EXPORT int execle(const char *path, const char *arg, ...)
{
  va_list ap;
  char **envp;
  CL_COLLECT_ARGS(arg, ap, argv, envp = va_arg(ap, char **));
  return execve(path, argv, envp);
}

/* ---- _exit and _Exit -------------------------------------------------------- */
/* The process ends with the system call itself, as the C library's _exit
 * does, not through a lookup of the real function: _exit is async-signal-
 * safe, and its first call may come from a signal handler that interrupted
 * the loader on this thread, where dlsym is not (and binding it in a
 * constructor would cost every process a lookup at start, issue 24). */
CL_EXPORT __attribute__((noreturn)) void _exit(int status)
{
  cl_writer_end("_exit", 0);
  for (;;)
    syscall(SYS_exit_group, status);
}

CL_EXPORT __attribute__((noreturn)) void _Exit(int status)
{
  cl_writer_end("_Exit", 0);
  for (;;)
    syscall(SYS_exit_group, status);
}

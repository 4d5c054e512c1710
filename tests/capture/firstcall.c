/* firstcall.c - the first call of the shim's exec and exit wrappers, in
 * the places where the real function is hardest to find (the wrappers look
 * it up on their first call, shim/exitwrap.c): in a vfork child (an exec
 * that fails, then _exit), in a signal handler (_Exit), and each of
 * execv, execvp, execvpe and fexecve in a forked child.  No CUDA.  Prints
 * one line a case and exits 0 when each did what the C library does;
 * tests/capture/firstcall.test runs it natively and under the shim.
 *
 *   firstcall          the cases
 *   firstcall ok       (what the execs run) exits 0 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int failures;
/* what the vfork child saw: in memory, which it shares with the parent
 * (not a register the parent restores) */
static volatile int vfork_errno;

static void check(const char *what, int ok)
{
  printf("%s: %s\n", what, ok ? "ok" : "FAILED");
  failures += !ok;
}

/* the child's exit status, or -1 */
static int status_of(pid_t pid)
{
  int st;
  if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
    return -1;
  return WEXITSTATUS(st);
}

static void on_usr1(int sig)
{
  (void)sig;
  _Exit(5); /* the wrapper's first call, in a signal handler */
}

int main(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "ok"))
    return 0;
  const char *self = "/proc/self/exe";
  char path[4096];
  ssize_t n = readlink(self, path, sizeof path - 1);
  if (n <= 0)
    return 2;
  path[n] = 0;
  setvbuf(stdout, NULL, _IONBF, 0);

  /* vfork: execve's first call fails (no such file), _exit's first call
   * ends the child; both in the child, which shares the parent's memory */
  pid_t pid = vfork();
  if (pid == 0) {
    char *const args[] = {"none", NULL};
    execve("/nonexistent/firstcall", args, environ);
    vfork_errno = errno;
    _exit(7);
  }
  int st = status_of(pid);
  check("vfork: execve fails with ENOENT", vfork_errno == ENOENT);
  check("vfork: _exit ends the child", st == 7);

  /* a signal handler: _Exit's first call */
  pid = fork();
  if (pid == 0) {
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    _exit(9);
  }
  check("signal handler: _Exit ends the child", status_of(pid) == 5);

  /* each exec's first call, in a forked child */
  char *const args[] = {path, "ok", NULL};
  pid = fork();
  if (pid == 0) {
    execv(path, args);
    _exit(8);
  }
  check("execv", status_of(pid) == 0);
  pid = fork();
  if (pid == 0) {
    execvp(path, args);
    _exit(8);
  }
  check("execvp", status_of(pid) == 0);
  pid = fork();
  if (pid == 0) {
    execvpe(path, args, environ);
    _exit(8);
  }
  check("execvpe", status_of(pid) == 0);
  pid = fork();
  if (pid == 0) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    fexecve(fd, args, environ);
    _exit(8);
  }
  check("fexecve", status_of(pid) == 0);
  return failures ? 1 : 0;
}

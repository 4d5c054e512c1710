/* clone3.c - a program that makes a child with the raw clone3 system call
 * (no fork handlers run, as a runtime with its own process creation does)
 * and makes CUDA calls there, more than a thread's record ring holds
 * (tests/capture/clone3.test, issue 24 defect 5).  The parent uses CUDA
 * before and after.  Prints what each process did; exit status 0 when the
 * child ended on its own with status 0. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int (*malloc_)(void **, size_t);
static int (*memset_)(void *, int, size_t);
static int (*sync_)(void);

static int calls(int n)
{
  void *d = NULL;
  if (malloc_(&d, 4096))
    return -1;
  for (int i = 0; i < n; i++)
    if (memset_(d, i & 0xff, 4096))
      return -1;
  return sync_();
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 6000;
  void *rt = dlopen("libcudart.so.13", RTLD_NOW);
  if (!rt) {
    fprintf(stderr, "clone3: %s\n", dlerror());
    return 2;
  }
  malloc_ = (int (*)(void **, size_t))dlsym(rt, "cudaMalloc");
  memset_ = (int (*)(void *, int, size_t))dlsym(rt, "cudaMemset");
  sync_ = (int (*)(void))dlsym(rt, "cudaDeviceSynchronize");
  if (!malloc_ || !memset_ || !sync_ || calls(10))
    return 2;
  fflush(stdout);
  struct clone_args args;
  memset(&args, 0, sizeof args);
  args.exit_signal = SIGCHLD;
  long pid = syscall(SYS_clone3, &args, sizeof args);
  if (pid < 0) {
    perror("clone3");
    return 77;
  }
  if (pid == 0) {
    int r = calls(n);
    printf("child: %d CUDA calls, result %d\n", n + 2, r);
    return r ? 1 : 0;
  }
  int status;
  if (waitpid((pid_t)pid, &status, 0) != pid)
    return 2;
  int r = calls(10);
  printf("parent: child status %d, then CUDA calls, result %d\n",
         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), r);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && !r ? 0 : 1;
}

/* mpcount.c - TEST DOUBLE for copy_loop.test (never installed): preloaded
 * before the shim, it counts the process's calls of mprotect through the
 * dynamic linker (the shim's own among them) and passes each on; at exit
 * it writes the count to the file named by CL_MPCOUNT_OUT. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static _Atomic unsigned long calls;

int mprotect(void *addr, size_t len, int prot)
{
  static int (*real)(void *, size_t, int);
  if (!real)
    real = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "mprotect");
  atomic_fetch_add(&calls, 1);
  return real(addr, len, prot);
}

__attribute__((destructor)) static void report(void)
{
  const char *path = getenv("CL_MPCOUNT_OUT");
  if (!path)
    return;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return;
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%lu\n", atomic_load(&calls));
  if (n > 0)
    (void)!write(fd, buf, (size_t)n);
  close(fd);
}

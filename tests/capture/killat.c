/* killat.c - a test double preloaded after libcudalens.so by
 * tests/capture/stub.test: the process is killed (SIGKILL) at its first
 * write to a file whose name ends in ".db", the worst moment for a
 * recording that is being created (issue 24, defect 2: a process killed in
 * its first milliseconds left a 0-byte recording).  Writes to other files
 * pass through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static void kill_if_db(int fd)
{
  char link[64], name[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, name, sizeof name - 1);
  if (n > 3 && !memcmp(name + n - 3, ".db", 3))
    kill(getpid(), SIGKILL);
}

ssize_t write(int fd, const void *buf, size_t len)
{
  kill_if_db(fd);
  ssize_t (*real)(int, const void *, size_t) =
      (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  return real(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
  kill_if_db(fd);
  ssize_t (*real)(int, const void *, size_t, off_t) =
      (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
  return real(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
  kill_if_db(fd);
  ssize_t (*real)(int, const void *, size_t, off_t) =
      (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
  return real(fd, buf, len, off);
}

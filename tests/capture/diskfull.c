/* diskfull.c - a test double preloaded after libcudalens.so by
 * tests/capture/diskfull.test: a full disk for the recording.  Writes to a
 * file whose name ends in ".db" or ".db-wal" that would make such files
 * grow by more than CL_DISKFULL_AFTER bytes in all (0 by default) fail with
 * ENOSPC, as on a file system with that much room: writing over what a
 * file holds already takes no room.  Other files (the program's, the
 * recorder's temporary one) are written. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static _Atomic long long grown;

/* the write of len bytes at off (-1: the file offset) would not fit */
static int full(int fd, size_t len, off_t off)
{
  char link[64], name[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, name, sizeof name - 1);
  if (n < 0)
    return 0;
  name[n] = 0;
  size_t l = (size_t)n;
  if (!(l > 3 && !strcmp(name + l - 3, ".db")) &&
      !(l > 7 && !strcmp(name + l - 7, ".db-wal")))
    return 0;
  struct stat st;
  if (off < 0)
    off = lseek(fd, 0, SEEK_CUR);
  if (fstat(fd, &st) || off < 0)
    return 0;
  long long grow = (long long)off + (long long)len - (long long)st.st_size;
  if (grow <= 0)
    return 0;
  const char *v = getenv("CL_DISKFULL_AFTER");
  long long limit = v ? atoll(v) : 0;
  if (atomic_fetch_add(&grown, grow) + grow <= limit)
    return 0;
  atomic_fetch_sub(&grown, grow);
  errno = ENOSPC;
  return 1;
}

ssize_t write(int fd, const void *buf, size_t len)
{
  if (full(fd, len, -1))
    return -1;
  ssize_t (*real)(int, const void *, size_t) =
      (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  return real(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
  if (full(fd, len, off))
    return -1;
  ssize_t (*real)(int, const void *, size_t, off_t) =
      (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
  return real(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
  if (full(fd, len, off))
    return -1;
  ssize_t (*real)(int, const void *, size_t, off_t) =
      (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
  return real(fd, buf, len, off);
}

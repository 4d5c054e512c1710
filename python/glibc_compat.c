/* glibc_compat.c - for the wheel's build against an old glibc
 * (cudalens_build.py, CUDALENS_WHEEL_GLIBC): the static libraries the
 * wheel's binaries take in (SQLite, elfutils, compression) come from the
 * build machine, built against its newer glibc, and call a few functions
 * the old one does not have.  Each is defined here on what the old glibc
 * has, only where the target glibc lacks it, with hidden visibility: they
 * serve cudalens's own binaries and are never exported to a traced
 * program. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>

#define HIDDEN __attribute__((visibility("hidden")))

#if __GLIBC__ == 2 && __GLIBC_MINOR__ < 28
/* fcntl64 (glibc 2.28): on 64-bit targets the same call as fcntl */
HIDDEN int fcntl64(int fd, int cmd, ...)
{
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return fcntl(fd, cmd, arg);
}
#endif

/* log.c - the shim's one logging function: `cudalens:` lines on stderr,
 * filtered by CUDALENS_DEBUGLEVEL through the CL_LOG macro in shim.h.  Built
 * with one write(2) so lines from several threads do not interleave.  An
 * error line (the process is not recorded, or not in full) also goes to the
 * launcher's manifest (manifest.c).
 *
 * Descriptor 2 is written only while it is the program's stderr: the file
 * it was when the shim was loaded, or a terminal, pipe or socket.  A program
 * that closed it and opened a data file there (which took the lowest free
 * number) never gets a line in its data (issue 24, defect 8). */
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "manifest.h"
#include "shim.h"

static struct stat stderr_at_start CL_STARTUP_DATA;
static int stderr_known CL_STARTUP_DATA;

/* fstat(2) straight from the kernel: the shim's own fstat wrapper
 * (syscalls.c) would look up the C library's in every process, CUDA or not
 * (issue 24, item 10).  The kernel's struct stat is the C library's on
 * x86-64 and AArch64. */
static int stat_fd(int fd, struct stat *st)
{
#if defined(SYS_fstat) && (defined(__x86_64__) || defined(__aarch64__))
  return (int)syscall(SYS_fstat, fd, st);
#else
  return fstat(fd, st);
#endif
}

CL_STARTUP_CODE void cl_log_init(void)
{
  stderr_known = !stat_fd(STDERR_FILENO, &stderr_at_start);
}

static int still_stderr(void)
{
  struct stat st;
  if (stat_fd(STDERR_FILENO, &st))
    return 0;
  if (stderr_known && st.st_dev == stderr_at_start.st_dev &&
      st.st_ino == stderr_at_start.st_ino)
    return 1;
  return S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

void cl_log_write(int level, const char *fmt, ...)
{
  if (!still_stderr())
    return;
  /* (rows of characters, not pointers: nothing to relocate at load) */
  static const char prefix[][12] = {"", "warning: ", "", "debug: "};
  char line[1024];
  int n = snprintf(line, sizeof line, "cudalens: %s",
                   prefix[level < 0 ? 0 : level > 3 ? 3 : level]);
  int head = n;
  va_list ap;
  va_start(ap, fmt);
  if (n >= 0 && (size_t)n < sizeof line)
    n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if (n == head) /* an empty message: say at least that much */
    n += snprintf(line + n, sizeof line - (size_t)n, "an error without a "
                                                     "message");
  if ((size_t)n >= sizeof line - 1)
    n = (int)sizeof line - 2;
  line[n++] = '\n';
  ssize_t r = write(STDERR_FILENO, line, (size_t)n);
  (void)r;
  if (level == CL_LOG_ERROR) {
    line[n - 1] = 0;
    cl_manifest_problem(line + sizeof "cudalens: " - 1);
  }
}

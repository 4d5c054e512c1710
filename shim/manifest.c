/* manifest.c - what the shim tells `cudalens run` (CUDALENS_MANIFEST, a
 * file the launcher made; appended to, never through a symbolic link, one
 * write(2) a line so that processes do not interleave): the path of each
 * recording it starts, and "!PID NAME<TAB>WHY" for each way this process
 * was not recorded, or not in full (every error line the shim prints, and
 * records it dropped), so that `cudalens run --fail-on` never passes a
 * process it could not check.  Nothing is written without the variable. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "manifest.h"
#include "shim.h"

static void append(const char *line, size_t n)
{
  if (!cl_cfg.manifest)
    return;
  int e = errno;
  int fd = open(cl_cfg.manifest, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t w = write(fd, line, n);
    (void)w;
    close(fd);
  }
  errno = e;
}

void cl_manifest_recording(const char *path)
{
  char line[4200];
  int n = snprintf(line, sizeof line, "%s\n", path);
  if (n > 0 && (size_t)n < sizeof line)
    append(line, (size_t)n);
}

void cl_manifest_problem(const char *why)
{
  char line[1200];
  int n = snprintf(line, sizeof line, "!%ld %s\t", (long)getpid(),
                   program_invocation_short_name);
  if (n < 0 || (size_t)n >= sizeof line - 2)
    return;
  /* one line: a line end inside WHY would start another */
  for (const char *p = why; *p && (size_t)n < sizeof line - 2; p++)
    line[n++] = *p == '\n' || *p == '\r' ? ' ' : *p;
  line[n++] = '\n';
  append(line, (size_t)n);
}

/* log.c - the shim's one logging function: `cudalens:` lines on stderr,
 * filtered by CUDALENS_DEBUGLEVEL through the CL_LOG macro in shim.h.  Built
 * with one write(2) so lines from several threads do not interleave.  An
 * error line (the process is not recorded, or not in full) also goes to the
 * launcher's manifest (manifest.c). */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "shim.h"

void cl_log_write(int level, const char *fmt, ...)
{
  static const char *const prefix[] = {"", "warning: ", "", "debug: "};
  char line[1024];
  int n = snprintf(line, sizeof line, "cudalens: %s",
                   prefix[level < 0 ? 0 : level > 3 ? 3 : level]);
  va_list ap;
  va_start(ap, fmt);
  if (n >= 0 && (size_t)n < sizeof line)
    n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
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

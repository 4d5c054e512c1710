/* util.c - checked allocation and the formatting helpers of util.h. */
#define _GNU_SOURCE /* vasprintf */
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void oom(void)
{
  fputs("cudalens-report: out of memory\n", stderr);
  exit(2);
}

void *xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p)
    oom();
  return p;
}

void *xcalloc(size_t n, size_t size)
{
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p)
    oom();
  return p;
}

void *xrealloc(void *p, size_t n)
{
  p = realloc(p, n ? n : 1);
  if (!p)
    oom();
  return p;
}

char *xstrdup(const char *s)
{
  if (!s)
    return NULL;
  size_t n = strlen(s) + 1;
  return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int r = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (r < 0)
    oom();
  return s;
}

void grow_array(void **v, size_t *cap, size_t need, size_t elem)
{
  if (need <= *cap)
    return;
  size_t n = *cap ? *cap * 2 : 8;
  while (n < need)
    n *= 2;
  *v = xrealloc(*v, n * elem);
  memset((char *)*v + *cap * elem, 0, (n - *cap) * elem);
  *cap = n;
}

const char *fmt_ns(char *buf, size_t len, int64_t ns)
{
  double v = (double)ns;
  double a = v < 0 ? -v : v;
  if (a < 1e3)
    snprintf(buf, len, "%lld ns", (long long)ns);
  else if (a < 1e6)
    snprintf(buf, len, "%.2f us", v / 1e3);
  else if (a < 1e9)
    snprintf(buf, len, "%.2f ms", v / 1e6);
  else
    snprintf(buf, len, "%.3f s", v / 1e9);
  return buf;
}

const char *fmt_bytes(char *buf, size_t len, int64_t bytes)
{
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) {
    snprintf(buf, len, "%lld B", (long long)bytes);
    return buf;
  }
  double v = (double)bytes;
  int u = -1;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  snprintf(buf, len, "%.1f %s", v, units[u]);
  return buf;
}

const char *fmt_hex(char *buf, size_t len, int64_t v)
{
  snprintf(buf, len, "0x%llx", (unsigned long long)v);
  return buf;
}

const char *path_base(const char *path)
{
  if (!path)
    return "";
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

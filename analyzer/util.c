/* util.c - checked allocation, fatal errors, escaping, saturating
 * arithmetic, the formatting helpers and the safe file opening of util.h. */
#define _GNU_SOURCE /* vasprintf */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The report runs on two threads at times (reading.c, analyses.c): the
 * first that fails prints its line and exits; one failing after it waits
 * here for the process to end (two exit() at once are undefined). */
static void failing(void)
{
  static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&first);
}

void fail_oom(void)
{
  failing();
  fputs("cudalens-report: out of memory\n", stderr);
  exit(2);
}

void *xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p)
    fail_oom();
  return p;
}

void *xcalloc(size_t n, size_t size)
{
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p)
    fail_oom();
  return p;
}

void *xrealloc(void *p, size_t n)
{
  p = realloc(p, n ? n : 1);
  if (!p)
    fail_oom();
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
    fail_oom();
  return s;
}

void vfatal(const char *fmt, va_list ap)
{
  failing();
  char *msg = NULL;
  if (vasprintf(&msg, fmt, ap) < 0)
    msg = NULL;
  fputs("cudalens-report: ", stderr);
  fput_escaped(stderr, msg ? msg : fmt);
  fputc('\n', stderr);
  free(msg);
  exit(2);
}

void fatal(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vfatal(fmt, ap);
}

int utf8_len(const char *str)
{
  const unsigned char *s = (const unsigned char *)str;
  int n;
  unsigned min;
  unsigned cp;
  if (s[0] < 0x80)
    return 1;
  else if ((s[0] & 0xe0) == 0xc0)
    n = 2, min = 0x80, cp = s[0] & 0x1f;
  else if ((s[0] & 0xf0) == 0xe0)
    n = 3, min = 0x800, cp = s[0] & 0x0f;
  else if ((s[0] & 0xf8) == 0xf0)
    n = 4, min = 0x10000, cp = s[0] & 0x07;
  else
    return 0;
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

void fput_escaped(FILE *f, const char *str)
{
  const unsigned char *s = (const unsigned char *)str;
  while (*s) {
    int n = utf8_len((const char *)s);
    bool control = n == 1 ? *s < 0x20 || *s == 0x7f
                          : n == 2 && s[0] == 0xc2 && s[1] < 0xa0;
    if (n == 0 || control) {
      for (int i = 0; i < (n ? n : 1); i++)
        fprintf(f, "\\x%02x", s[i]);
      s += n ? n : 1;
    } else {
      fwrite(s, 1, (size_t)n, f);
      s += n;
    }
  }
}

char *escaped(const char *s)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    fail_oom();
  fput_escaped(f, s);
  if (fclose(f) != 0 || !buf)
    fail_oom();
  return buf;
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

int64_t sat_add(int64_t a, int64_t b)
{
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

int64_t sat_sub(int64_t a, int64_t b)
{
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    return b < 0 ? INT64_MAX : INT64_MIN;
  return r;
}

int64_t sat_mul(int64_t a, int64_t b)
{
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
  return r;
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

int open_regular_file(const char *path, unsigned *mode)
{
  struct stat st;
  if (stat(path, &st) < 0)
    return -1;
  if (mode)
    *mode = (unsigned)st.st_mode;
  if (!S_ISREG(st.st_mode))
    return OPEN_NOT_REGULAR; /* not even opened */
  /* O_NONBLOCK: should the file have been replaced by a FIFO since */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int rc = fd;
  if (fstat(fd, &st) < 0)
    rc = -1;
  else if (!S_ISREG(st.st_mode))
    rc = OPEN_NOT_REGULAR;
  if (rc < 0) {
    int saved = errno;
    close(fd);
    if (mode)
      *mode = (unsigned)st.st_mode;
    errno = saved;
  }
  return rc;
}

const char *file_type_name(unsigned mode)
{
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return S_ISREG(mode) ? "a regular file" : "not a regular file";
}

/* outpath.c - turns the CUDALENS_OUTPUT pattern into a file name (%p pid,
 * %h host, %q{VAR} environment variable, %% percent; a variable's value
 * cannot lead out of the pattern's folder) and creates that file
 * exclusively, readable by its owner only (it holds the command line),
 * never following a symlink and never overwriting: when the name is taken
 * it tries NAME.1.db, NAME.2.db, ... */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

static int put(char *out, size_t outsz, size_t *n, const char *s, size_t len,
               unsigned char *from_var, int from_env)
{
  if (*n + len >= outsz)
    return -1;
  for (size_t i = 0; i < len; i++) {
    /* a '/' in a variable's value would make a folder of it */
    out[*n + i] = from_env && s[i] == '/' ? '_' : s[i];
    from_var[*n + i] = (unsigned char)from_env;
  }
  *n += len;
  out[*n] = 0;
  return 0;
}

/* A "." or ".." component made with a variable's value becomes "_" or
 * "__": the value cannot lead out of the pattern's folder. */
static void no_dot_components(char *out, const unsigned char *from_var)
{
  for (char *c = out, *end; *c; c = *end ? end + 1 : end) {
    end = strchrnul(c, '/');
    size_t len = (size_t)(end - c);
    if ((len == 1 || len == 2) && !strncmp(c, "..", len))
      for (size_t i = 0; i < len; i++)
        if (from_var[c - out + (ptrdiff_t)i])
          c[i] = '_';
  }
}

int cl_outpath_expand(const char *pattern, pid_t pid, char *out, size_t outsz,
                      char *err, size_t errsz)
{
  size_t n = 0;
  unsigned char from_var[outsz];
  out[0] = 0;
  for (const char *p = pattern; *p; p++) {
    char buf[256];
    const char *s = buf;
    size_t len;
    int from_env = 0;
    if (*p != '%') {
      s = p;
      len = 1;
    } else {
      switch (*++p) {
      case 'p':
        len = (size_t)snprintf(buf, sizeof buf, "%ld", (long)pid);
        break;
      case 'h':
        if (gethostname(buf, sizeof buf - 1))
          strcpy(buf, "localhost");
        buf[sizeof buf - 1] = 0;
        len = strlen(buf);
        break;
      case '%':
        s = "%";
        len = 1;
        break;
      case 'q': {
        const char *close = p[1] == '{' ? strchr(p + 2, '}') : NULL;
        if (!close || close == p + 2) {
          snprintf(err, errsz, "bad %%q in output pattern '%s' (use %%q{VAR})",
                   pattern);
          return -1;
        }
        size_t vl = (size_t)(close - (p + 2));
        char var[128];
        if (vl >= sizeof var) {
          snprintf(err, errsz, "variable name too long in '%s'", pattern);
          return -1;
        }
        memcpy(var, p + 2, vl);
        var[vl] = 0;
        s = getenv(var);
        if (!s)
          s = "";
        len = strlen(s);
        from_env = 1;
        p = close;
        break;
      }
      default:
        snprintf(err, errsz,
                 "unknown %%%c in output pattern '%s' (known: %%p %%h "
                 "%%q{VAR} %%%%)",
                 *p ? *p : ' ', pattern);
        return -1;
      }
    }
    if (put(out, outsz, &n, s, len, from_var, from_env)) {
      snprintf(err, errsz, "output path too long: '%s'", pattern);
      return -1;
    }
  }
  if (!n) {
    snprintf(err, errsz, "empty output path");
    return -1;
  }
  no_dot_components(out, from_var);
  return 0;
}

/* NAME.db -> NAME.<k>.db; other names -> NAME.<k> */
static int numbered(const char *path, int k, char *out, size_t outsz)
{
  size_t len = strlen(path);
  int r;
  if (len > 3 && !strcmp(path + len - 3, ".db"))
    r = snprintf(out, outsz, "%.*s.%d.db", (int)(len - 3), path, k);
  else
    r = snprintf(out, outsz, "%s.%d", path, k);
  return r < 0 || (size_t)r >= outsz ? -1 : 0;
}

int cl_outpath_create(const char *path, char *chosen, size_t chosensz,
                      char *err, size_t errsz)
{
  for (int k = 0; k < 1000; k++) {
    if (k == 0) {
      if (strlen(path) >= chosensz)
        break;
      strcpy(chosen, path);
    } else if (numbered(path, k, chosen, chosensz)) {
      break;
    }
    int fd = open(chosen, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);
    if (fd >= 0)
      return fd;
    if (errno != EEXIST) {
      snprintf(err, errsz, "cannot create '%s': %s", chosen, strerror(errno));
      return -1;
    }
  }
  snprintf(err, errsz, "cannot create '%s' or a numbered variant of it", path);
  return -1;
}

/* outpath.c - the rule of the output pattern (CUDALENS_OUTPUT, `cudalens
 * run -o`): %p pid, %h host, %q{VAR} environment variable, %% percent; a
 * variable's value cannot lead out of the pattern's folder.  One copy,
 * shared by the shim (shim/outpath.c creates the file) and the launcher
 * (launcher/launcher.c checks the pattern and makes its folder before the
 * program starts). */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cudalens/outpath.h"

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

int cl_outpath_folder(const char *pattern, char *out, size_t outsz, char *err,
                      size_t errsz)
{
  size_t cut = 0;
  for (const char *p = pattern; *p; p++) {
    if (*p == '/') {
      cut = (size_t)(p - pattern);
    } else if (*p == '%') {
      if (p[1] == 'p' || p[1] == 'q')
        break;
      if (p[1])
        p++; /* %% or %h: the next character is not a separator */
    }
  }
  out[0] = 0;
  if (!cut)
    return 0;
  char *prefix = strndup(pattern, cut);
  if (!prefix) {
    snprintf(err, errsz, "out of memory");
    return -1;
  }
  int r = cl_outpath_expand(prefix, 0, out, outsz, err, errsz);
  free(prefix);
  return r;
}

int cl_make_folders(const char *dir, char *err, size_t errsz)
{
  size_t len = strlen(dir);
  char *path = strdup(dir);
  if (!path) {
    snprintf(err, errsz, "out of memory");
    return -1;
  }
  int r = 0;
  /* every prefix that ends before a '/', then the whole path */
  for (size_t i = 1; i <= len && !r; i++) {
    if (i < len && path[i] != '/')
      continue;
    if (path[i - 1] == '/')
      continue; /* "a//b": the same folder again */
    char saved = path[i];
    path[i] = 0;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      path[i] = saved;
      continue; /* there already (mkdir might say EACCES or EROFS first) */
    }
    if (mkdir(path, 0777) < 0) {
      int e = errno;
      if (e != EEXIST || stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errsz, "cannot create the folder '%s': %s", path,
                 e == EEXIST ? strerror(ENOTDIR) : strerror(e));
        r = -1;
      }
    }
    path[i] = saved;
  }
  free(path);
  return r;
}

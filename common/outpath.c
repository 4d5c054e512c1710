/* outpath.c - the rule of the output pattern (CUDALENS_OUTPUT, `cudalens
 * run -o`): %p pid, %h host, %q{VAR} environment variable, %% percent; a
 * variable's value cannot lead out of the pattern's folder.  One copy,
 * shared by the shim (shim/outfile.c creates the file) and the launcher
 * (launcher/launcher.c checks the pattern and makes its folder before the
 * program starts, refusing patterns whose folders cannot exist then). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
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

/* The end of the %-escape at P (P[0] == '%'): past %q{VAR}, or past the
 * letter; *var is set to VAR's name for %q (malloc'd), else NULL. */
static const char *escape_end(const char *p, char **var)
{
  *var = NULL;
  if (p[1] == 'q' && p[2] == '{') {
    const char *close = strchr(p + 3, '}');
    if (close) {
      *var = strndup(p + 3, (size_t)(close - (p + 3)));
      return close + 1;
    }
  }
  return p[1] ? p + 2 : p + 1;
}

/* The component COMP[0..len) of a pattern as an fnmatch glob: %p and
 * %q{VAR} match anything, %h is this host, %% a percent sign.  malloc'd. */
static char *component_glob(const char *comp, size_t len)
{
  char host[256];
  if (gethostname(host, sizeof host - 1))
    strcpy(host, "localhost");
  host[sizeof host - 1] = 0;
  char *out = malloc(len * 2 + 2 * strlen(host) + 2), *o = out;
  if (!out)
    return NULL;
  for (const char *p = comp, *end = comp + len; p < end;) {
    const char *lit = NULL;
    if (*p == '%') {
      char *var;
      const char *next = escape_end(p, &var);
      free(var);
      if (p[1] == 'p' || p[1] == 'q') {
        *o++ = '*';
        p = next;
        continue;
      }
      lit = p[1] == 'h' ? host : "%";
      p = next;
    }
    const char *s = lit ? lit : p++;
    for (size_t i = 0, n = lit ? strlen(lit) : 1; i < n; i++) {
      if (strchr("*?[\\", s[i]))
        *o++ = '\\';
      *o++ = s[i];
    }
  }
  *o = 0;
  return out;
}

/* Whether DIR ("" for the working directory) has a folder matching GLOB. */
static int has_matching_folder(const char *dir, const char *glob)
{
  DIR *d = opendir(*dir ? dir : ".");
  if (!d)
    return 0;
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
        fnmatch(glob, e->d_name, FNM_PERIOD))
      continue;
    struct stat st;
    found = !fstatat(dirfd(d), e->d_name, &st, 0) && S_ISDIR(st.st_mode);
  }
  closedir(d);
  return found;
}

int cl_outpath_folder(const char *pattern, char *out, size_t outsz, char *err,
                      size_t errsz)
{
  size_t len = strlen(pattern);
  out[0] = 0;
  if (len && pattern[len - 1] == '/') {
    snprintf(err, errsz, "names a folder, not a file (add a file name: "
             "%scudalens-%%p.db)", pattern);
    return -1;
  }
  /* the folder part ends at the last '/'; in it, the first %p and the
   * first %q{VAR} whose VAR is not set here, with the '/' before each */
  size_t cut = 0, before_unset = 0;
  const char *unset = NULL, *pid = NULL, *unset_comp = NULL;
  char *unset_var = NULL;
  for (const char *p = pattern, *last_slash = NULL; *p;) {
    if (*p == '/') {
      cut = (size_t)(p - pattern);
      last_slash = p;
      p++;
      continue;
    }
    if (*p != '%') {
      p++;
      continue;
    }
    char *var;
    const char *next = escape_end(p, &var);
    if (p[1] == 'p' && !pid)
      pid = p;
    if (var && !getenv(var) && !unset) {
      unset = p;
      unset_var = var;
      before_unset = last_slash ? (size_t)(last_slash - pattern) : 0;
      unset_comp = last_slash ? last_slash + 1 : pattern;
    } else {
      free(var);
    }
    p = next;
  }
  if (pid && (size_t)(pid - pattern) < cut) {
    free(unset_var);
    const char *s = pid; /* the start of the %p's component */
    while (s > pattern && s[-1] != '/')
      s--;
    snprintf(err, errsz, "a folder named with %%p cannot exist before the "
             "process starts (only the launcher makes folders): put %%p in "
             "the file name, as in %.*scudalens-%%p.db",
             (int)(s - pattern), pattern);
    return -1;
  }
  if (!cut) {
    free(unset_var);
    return 0;
  }
  int partial = unset && (size_t)(unset - pattern) < cut;
  size_t make = partial ? before_unset : cut;
  if (make) {
    char *prefix = strndup(pattern, make);
    if (!prefix) {
      free(unset_var);
      snprintf(err, errsz, "out of memory");
      return -1;
    }
    int r = cl_outpath_expand(prefix, 0, out, outsz, err, errsz);
    free(prefix);
    if (r < 0) {
      free(unset_var);
      return r;
    }
  }
  if (partial) {
    /* the folders named by VAR are the user's to make: one must exist */
    const char *comp = unset_comp;
    if (!make && comp > pattern) /* "/%q{VAR}/...": the root */
      snprintf(out, outsz, "/");
    size_t clen = strcspn(comp, "/");
    char *glob = component_glob(comp, clen);
    int ok = glob && has_matching_folder(out, glob);
    free(glob);
    if (!ok) {
      snprintf(err, errsz, "the folder '%.*s' is named by %%q{%s}, which is "
               "not set here, so it cannot be made before the program starts "
               "and no such folder exists: make the folders first, or put "
               "%%q{%s} in the file name", (int)(comp + clen - pattern),
               pattern, unset_var, unset_var);
      free(unset_var);
      return -1;
    }
  }
  free(unset_var);
  return 0;
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

/* demangle.c - cl_demangle(): __cxa_demangle for names that look mangled
 * ("_Z..."), a plain copy for the rest (C functions, extern "C" kernels);
 * cl_kernel_brief(): such a name shortened for a finding's first line;
 * cl_kernel_argument(): how findings name one of its arguments. */
#include "sites/demangle.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* from libstdc++ (cxxabi.h is C++ only) */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
                            int *status);

char *cl_demangle(const char *name)
{
  if (!name)
    return NULL;
  if (strncmp(name, "_Z", 2) == 0) {
    int status = -1;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (status == 0 && d)
      return d;
    free(d);
  }
  return xstrdup(name);
}

/* the index of the '(' that opens NAME's parameter list: the last
 * parenthesized group at the top level (outside <> and ()), as in
 * "f<g(int)>(int)" or "(anonymous namespace)::k(int)"; LEN when none */
static size_t params_start(const char *name, size_t len)
{
  size_t open = len;
  int angle = 0, paren = 0;
  for (size_t i = 0; i < len; i++) {
    char c = name[i];
    if (c == '<' && paren == 0 && strncmp(name + i, "<<", 2) != 0)
      angle++;
    else if (c == '>' && paren == 0 && angle > 0)
      angle--;
    else if (c == '(') {
      if (paren == 0 && angle == 0 && strncmp(name + i, "()(", 3) != 0 &&
          !(i >= 8 && strncmp(name + i - 8, "operator", 8) == 0))
        open = i;
      paren++;
    } else if (c == ')' && paren > 0)
      paren--;
  }
  return open;
}

/* NAME[0..LEN) with the template arguments at depth > KEEP replaced by
 * "..." (KEEP 1: an argument's own arguments; 0: the name's own) */
static char *elide_templates(const char *name, size_t len, int keep)
{
  char *out = xmalloc(4 * len + 4); /* "<>" becomes "<...>" */
  size_t o = 0;
  int angle = 0, paren = 0;
  for (size_t i = 0; i < len; i++) {
    char c = name[i];
    if (c == '(')
      paren++;
    else if (c == ')' && paren > 0)
      paren--;
    if (c == '<' && paren == 0) {
      if (angle <= keep)
        out[o++] = '<';
      if (angle == keep)
        out[o++] = '.', out[o++] = '.', out[o++] = '.';
      angle++;
    } else if (c == '>' && paren == 0 && angle > 0) {
      angle--;
      if (angle <= keep)
        out[o++] = '>';
    } else if (angle <= keep) {
      out[o++] = c;
    }
  }
  out[o] = 0;
  return out;
}

char *cl_kernel_brief(const char *demangled)
{
  if (!demangled)
    return xstrdup("(unnamed)");
  size_t len = params_start(demangled, strlen(demangled));
  /* the return type: what precedes the last top-level blank */
  size_t start = 0;
  int angle = 0, paren = 0;
  for (size_t i = 0; i < len; i++) {
    char c = demangled[i];
    if (c == '<')
      angle++;
    else if (c == '>' && angle > 0)
      angle--;
    else if (c == '(')
      paren++;
    else if (c == ')' && paren > 0)
      paren--;
    else if (c == ' ' && angle == 0 && paren == 0)
      start = i + 1;
  }
  char *r = elide_templates(demangled + start, len - start, 1);
  if (strlen(r) > 100) {
    free(r);
    r = elide_templates(demangled + start, len - start, 0);
  }
  return r;
}

char *cl_kernel_argument(const char *demangled, int index)
{
  size_t len = demangled ? strlen(demangled) : 0;
  size_t open = demangled ? params_start(demangled, len) : len;
  if (index < 0)
    return xstrdup("argument ?");
  /* the INDEX-th parameter: between top-level commas of the list */
  const char *type = NULL;
  size_t tlen = 0;
  if (open < len) {
    int angle = 0, paren = 0, k = 0;
    size_t from = open + 1;
    for (size_t i = open + 1; i < len; i++) {
      char c = demangled[i];
      if (c == '<')
        angle++;
      else if (c == '>' && angle > 0)
        angle--;
      else if (c == '(' || c == '[')
        paren++;
      else if ((c == ')' || c == ']') && paren > 0)
        paren--;
      else if ((c == ',' || c == ')') && angle == 0 && paren == 0) {
        if (k++ == index) {
          while (demangled[from] == ' ')
            from++;
          type = demangled + from;
          tlen = i - from;
          break;
        }
        from = i + 1;
        if (c == ')')
          break;
      }
    }
  }
  /* "(...)" and "()" name no type */
  if (type && (!tlen || (tlen == 3 && !strncmp(type, "...", 3))))
    type = NULL;
  return type ? xasprintf("argument %d, %.*s", index + 1, (int)tlen, type)
              : xasprintf("argument %d", index + 1);
}

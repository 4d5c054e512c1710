/* mangle_const.c - a small parser of Itanium C++ mangled function names
 * that only needs to answer one question per parameter: is it a pointer,
 * and does it point to const?  It follows the ABI's grammar for the names
 * and types kernels use (nested and template names, builtins, CV-qualified
 * types, pointers and references, arrays, substitutions S_/S<n>_ and
 * template parameters T_/T<n>_, which may stand for a const type) and gives
 * up (-1) on anything else, so a kernel it does not understand is treated
 * as writing through every pointer.  Substitution candidates are numbered
 * as libiberty's demangler numbers them (a nested name's last component is
 * not one; template arguments' types are). */
#include "cudalens/mangle_const.h"

#include <ctype.h>
#include <string.h>

struct mtype {
  unsigned char ptr;       /* a pointer */
  unsigned char ptr_const; /* ... to a const type */
  unsigned char is_const;  /* the type itself is const-qualified */
};

#define MAX_SUBS 256
#define MAX_TARGS 64

struct mp {
  const char *p;
  struct mtype subs[MAX_SUBS];
  int nsubs;
  struct mtype targs[MAX_TARGS]; /* the function's template arguments */
  int ntargs;
  int depth;
  int fail;
};

static const struct mtype OTHER = {0, 0, 0};

static void add_sub(struct mp *m, struct mtype t)
{
  if (m->nsubs < MAX_SUBS)
    m->subs[m->nsubs] = t;
  m->nsubs++;
}

static int fail(struct mp *m)
{
  m->fail = 1;
  return -1;
}

static int number(struct mp *m, long *out)
{
  if (!isdigit((unsigned char)*m->p))
    return fail(m);
  long n = 0;
  while (isdigit((unsigned char)*m->p)) {
    n = n * 10 + (*m->p++ - '0');
    if (n > 100000)
      return fail(m);
  }
  *out = n;
  return 0;
}

static int source_name(struct mp *m)
{
  long n;
  if (number(m, &n) < 0)
    return -1;
  if ((long)strnlen(m->p, (size_t)n) < n)
    return fail(m);
  m->p += n;
  return 0;
}

/* <seq-id> _ after S or T; *idx = -1 for "_" alone, else the base-36 value */
static int seq_id(struct mp *m, long *idx)
{
  if (*m->p == '_') {
    m->p++;
    *idx = -1;
    return 0;
  }
  long v = 0;
  while (isdigit((unsigned char)*m->p) || isupper((unsigned char)*m->p)) {
    int c = *m->p++;
    v = v * 36 + (isdigit(c) ? c - '0' : c - 'A' + 10);
    if (v > 100000)
      return fail(m);
  }
  if (*m->p != '_')
    return fail(m);
  m->p++;
  *idx = v;
  return 0;
}

static int type(struct mp *m, struct mtype *out);

/* I <template-arg>+ E; the arguments' types go to TARGS when non-NULL */
static int template_args(struct mp *m, struct mtype *targs, int *ntargs)
{
  if (*m->p != 'I' && *m->p != 'J')
    return fail(m);
  m->p++;
  int n = 0;
  while (*m->p && *m->p != 'E') {
    struct mtype t = OTHER;
    if (*m->p == 'L') {
      /* literal: L <type> <value> E, or L_Z <encoding> E (not supported) */
      if (m->p[1] == '_' && m->p[2] == 'Z')
        return fail(m);
      m->p++;
      struct mtype dummy;
      if (type(m, &dummy) < 0)
        return -1;
      while (*m->p && *m->p != 'E')
        m->p++;
      if (*m->p != 'E')
        return fail(m);
      m->p++;
    } else if (*m->p == 'J') {
      if (template_args(m, NULL, NULL) < 0)
        return -1;
    } else if (*m->p == 'X') {
      return fail(m); /* expressions */
    } else if (type(m, &t) < 0) {
      return -1;
    }
    if (targs && n < MAX_TARGS)
      targs[n] = t;
    n++;
  }
  if (*m->p != 'E')
    return fail(m);
  m->p++;
  if (ntargs)
    *ntargs = n < MAX_TARGS ? n : MAX_TARGS;
  return 0;
}

/* an <unqualified-name>: source name, operator, ctor/dtor */
static int unqualified(struct mp *m)
{
  const char *p = m->p;
  if (isdigit((unsigned char)*p))
    return source_name(m);
  if (*p == 'L') { /* internal linkage: L <source-name> */
    m->p++;
    return source_name(m);
  }
  if ((*p == 'C' && (p[1] >= '1' && p[1] <= '5')) ||
      (*p == 'D' && (p[1] >= '0' && p[1] <= '5'))) {
    m->p += 2;
    return 0;
  }
  if (*p == 'U' && p[1] == 't') { /* unnamed type Ut [n] _ */
    m->p += 2;
    while (isdigit((unsigned char)*m->p))
      m->p++;
    if (*m->p != '_')
      return fail(m);
    m->p++;
    return 0;
  }
  if (*p == 'c' && p[1] == 'v') { /* conversion operator: cv <type> */
    m->p += 2;
    struct mtype t;
    return type(m, &t);
  }
  if (islower((unsigned char)p[0]) && islower((unsigned char)p[1])) {
    m->p += 2; /* operator name */
    return 0;
  }
  return fail(m);
}

/* N [CV] [ref] <prefix components> E.  *templated: the last component was
 * a template argument list.  FUNCTION_TARGS: store the last argument list
 * as the function's template arguments. */
static int nested(struct mp *m, int *templated, int function_targs)
{
  m->p++; /* N */
  while (*m->p == 'r' || *m->p == 'V' || *m->p == 'K')
    m->p++;
  if (*m->p == 'R' || *m->p == 'O')
    m->p++;
  int last_templ = 0, first = 1;
  while (*m->p && *m->p != 'E') {
    last_templ = 0;
    if (*m->p == 'S' && first) {
      if (m->p[1] == 't') {
        m->p += 2;
        if (unqualified(m) < 0)
          return -1;
      } else if (m->p[1] && strchr("absiod", m->p[1])) {
        m->p += 2;
      } else {
        m->p++;
        long idx;
        if (seq_id(m, &idx) < 0)
          return -1;
        /* a substituted prefix is not added again */
        first = 0;
        continue;
      }
    } else if (*m->p == 'T' && first) {
      m->p++;
      long idx;
      if (seq_id(m, &idx) < 0)
        return -1;
    } else if (*m->p == 'I') {
      struct mtype scratch[MAX_TARGS];
      int n = 0;
      if (template_args(m, function_targs ? m->targs : scratch,
                        function_targs ? &m->ntargs : &n) < 0)
        return -1;
      last_templ = 1;
    } else if (*m->p == 'B') { /* abi tag B <source-name> */
      m->p++;
      if (source_name(m) < 0)
        return -1;
      continue;
    } else if (unqualified(m) < 0) {
      return -1;
    }
    first = 0;
    if (*m->p != 'E')
      add_sub(m, OTHER);
  }
  if (*m->p != 'E')
    return fail(m);
  m->p++;
  if (templated)
    *templated = last_templ;
  return 0;
}

/* a class or enum type name (not N...E): source name, St name, with
 * optional template arguments */
static int class_type(struct mp *m, struct mtype *out)
{
  if (*m->p == 'N') {
    if (nested(m, NULL, 0) < 0)
      return -1;
  } else if (unqualified(m) < 0) {
    return -1;
  }
  *out = OTHER;
  add_sub(m, OTHER);
  if (*m->p == 'I') {
    if (template_args(m, NULL, NULL) < 0)
      return -1;
    add_sub(m, OTHER);
  }
  return 0;
}

static int type(struct mp *m, struct mtype *out)
{
  if (++m->depth > 64) {
    m->depth--;
    return fail(m);
  }
  int rc = 0;
  const char c = *m->p;
  *out = OTHER;
  if (c && strchr("vwbcahstijlmxynofdegz", c)) {
    m->p++;
  } else if (c == 'D') {
    char d = m->p[1];
    if (d && strchr("hfdeisacnu", d)) {
      m->p += 2;
    } else if (d == 'F') { /* DF<n>_ or DF<n>b */
      m->p += 2;
      while (isdigit((unsigned char)*m->p))
        m->p++;
      if (*m->p == '_' || *m->p == 'b' || *m->p == 'x')
        m->p++;
      else
        rc = fail(m);
    } else if (d == 'p') {
      m->p += 2;
      struct mtype t;
      rc = type(m, &t);
      if (rc == 0)
        add_sub(m, OTHER);
    } else if (d == 'v') { /* vector: Dv <num> _ <type> */
      m->p += 2;
      long n;
      struct mtype t;
      if (number(m, &n) < 0 || *m->p != '_')
        rc = fail(m);
      else {
        m->p++;
        rc = type(m, &t);
        if (rc == 0)
          add_sub(m, OTHER);
      }
    } else {
      rc = fail(m);
    }
  } else if (c == 'u') {
    m->p++;
    rc = source_name(m);
    if (rc == 0)
      add_sub(m, OTHER);
  } else if (c == 'r' || c == 'V' || c == 'K') {
    int k = 0;
    while (*m->p == 'r' || *m->p == 'V' || *m->p == 'K')
      k |= *m->p++ == 'K';
    struct mtype t;
    rc = type(m, &t);
    if (rc == 0) {
      *out = t;
      out->is_const |= (unsigned char)k;
      add_sub(m, *out);
    }
  } else if (c == 'P') {
    m->p++;
    struct mtype t;
    rc = type(m, &t);
    if (rc == 0) {
      out->ptr = 1;
      out->ptr_const = t.is_const;
      add_sub(m, *out);
    }
  } else if (c == 'R' || c == 'O') {
    m->p++;
    struct mtype t;
    rc = type(m, &t);
    if (rc == 0)
      add_sub(m, OTHER);
  } else if (c == 'A') {
    m->p++;
    long n;
    struct mtype t;
    if (*m->p != '_' && number(m, &n) < 0)
      rc = -1;
    else if (*m->p != '_')
      rc = fail(m);
    else {
      m->p++;
      rc = type(m, &t);
      if (rc == 0)
        add_sub(m, OTHER);
    }
  } else if (c == 'M') {
    m->p++;
    struct mtype a, b;
    rc = type(m, &a);
    if (rc == 0)
      rc = type(m, &b);
    if (rc == 0)
      add_sub(m, OTHER);
  } else if (c == 'F') {
    m->p++;
    if (*m->p == 'Y')
      m->p++;
    while (rc == 0 && *m->p && *m->p != 'E') {
      struct mtype t;
      if (*m->p == 'R' && m->p[1] == 'E') { /* ref-qualifier */
        m->p++;
        continue;
      }
      rc = type(m, &t);
    }
    if (rc == 0 && *m->p == 'E') {
      m->p++;
      add_sub(m, OTHER);
    } else if (rc == 0) {
      rc = fail(m);
    }
  } else if (c == 'S') {
    char d = m->p[1];
    if (d == 't') {
      m->p += 2;
      rc = class_type(m, out);
    } else if (d && strchr("absiod", d)) {
      m->p += 2;
      if (*m->p == 'I') {
        rc = template_args(m, NULL, NULL);
        if (rc == 0)
          add_sub(m, OTHER);
      }
    } else {
      m->p++;
      long idx;
      rc = seq_id(m, &idx);
      if (rc == 0) {
        long i = idx + 1;
        if (i < m->nsubs && i < MAX_SUBS)
          *out = m->subs[i];
        else
          rc = fail(m);
        if (rc == 0 && *m->p == 'I') {
          rc = template_args(m, NULL, NULL);
          *out = OTHER;
          if (rc == 0)
            add_sub(m, OTHER);
        }
      }
    }
  } else if (c == 'T') {
    m->p++;
    long idx;
    rc = seq_id(m, &idx);
    if (rc == 0) {
      long i = idx + 1;
      *out = i < m->ntargs ? m->targs[i] : OTHER;
      add_sub(m, *out);
      if (*m->p == 'I') {
        rc = template_args(m, NULL, NULL);
        *out = OTHER;
        if (rc == 0)
          add_sub(m, OTHER);
      }
    }
  } else if (c == 'N' || isdigit((unsigned char)c)) {
    rc = class_type(m, out);
  } else {
    rc = fail(m);
  }
  m->depth--;
  return rc;
}

int mangle_param_classes(const char *name, enum param_class *out, size_t max)
{
  if (!name || strncmp(name, "_Z", 2) != 0)
    return -1;
  static __thread struct mp m; /* large: keep it off the stack */
  memset(&m, 0, sizeof m);
  m.p = name + 2;
  int templated = 0;
  if (*m.p == 'N') {
    if (nested(&m, &templated, 1) < 0)
      return -1;
  } else if (*m.p == 'Z') {
    return -1; /* local entities */
  } else {
    if (*m.p == 'S' && m.p[1] == 't')
      m.p += 2;
    if (unqualified(&m) < 0)
      return -1;
    if (*m.p == 'I') {
      add_sub(&m, OTHER); /* <unscoped-template-name> */
      if (template_args(&m, m.targs, &m.ntargs) < 0)
        return -1;
      templated = 1;
    }
  }
  if (templated) {
    struct mtype ret;
    if (type(&m, &ret) < 0)
      return -1;
  }
  int n = 0;
  /* "v" alone: no parameters; '.' starts a clone suffix (.cold, ...) */
  if (m.p[0] == 'v' && (m.p[1] == '\0' || m.p[1] == '.'))
    return 0;
  while (*m.p && *m.p != '.') {
    struct mtype t;
    if (type(&m, &t) < 0)
      return -1;
    if ((size_t)n < max)
      out[n] = !t.ptr ? PARAM_OTHER : t.ptr_const ? PARAM_PTR_CONST : PARAM_PTR;
    n++;
  }
  return n;
}

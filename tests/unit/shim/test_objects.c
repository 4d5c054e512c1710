/* test_objects.c - unit test of what a loaded object maps
 * (shim/objects.c), against what the loader's dladdr says: the object
 * holding a function of this program is the main program (name ""); the
 * C library's name is its file's without directories; its bounds hold its
 * base and its functions and data; one of its executable segments holds
 * strlen and none holds its read-only data (strerror's text); a stack
 * address is in no object; segments that do not fit are counted, the
 * ones that fit appended after what the array held; spans are [lo, hi). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "shim/objects.h"
#include "../unit.h"

static int local_function(int x)
{
  return x + 1;
}

struct seen {
  uint64_t addr;      /* looked for */
  int holders;        /* objects that hold it */
  char name[256];     /* the holder's name */
  struct cl_span bounds;
  struct cl_span exec[16];
  size_t nexec, left;
};

static int look(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  struct seen *s = arg;
  if (!cl_object_holds(info, s->addr))
    return 0;
  s->holders++;
  snprintf(s->name, sizeof s->name, "%s", cl_object_name(info));
  CHECK(cl_object_bounds(info, &s->bounds));
  s->nexec = 0;
  s->left = cl_object_exec(info, s->exec, &s->nexec, 16);
  /* none fits: all counted, nothing written */
  size_t n = 0;
  CHECK(cl_object_exec(info, NULL, &n, 0) == s->nexec && n == 0);
  /* after two held already, one fits: the rest counted */
  struct cl_span v[3] = {{1, 2}, {3, 4}, {0, 0}};
  n = 2;
  CHECK(cl_object_exec(info, v, &n, 3) == s->nexec - 1 && n == 3);
  CHECK(v[0].lo == 1 && v[1].hi == 4 && v[2].lo == s->exec[0].lo &&
        v[2].hi == s->exec[0].hi);
  return 0;
}

static struct seen find(const void *p)
{
  struct seen s;
  memset(&s, 0, sizeof s);
  s.addr = (uintptr_t)p;
  dl_iterate_phdr(look, &s);
  return s;
}

int main(void)
{
  /* the main program */
  struct seen m = find((const void *)(uintptr_t)local_function);
  CHECK(m.holders == 1 && !strcmp(m.name, ""), "%d holders, '%s'", m.holders,
        m.name);
  CHECK(m.nexec >= 1 && !m.left);
  CHECK(cl_span_has(m.exec, m.nexec, (uintptr_t)local_function));

  /* the C library */
  Dl_info d;
  void *fn = dlsym(RTLD_DEFAULT, "strlen");
  CHECK(fn && dladdr(fn, &d) && d.dli_fname);
  if (fn && d.dli_fname) {
    const char *base = strrchr(d.dli_fname, '/');
    base = base ? base + 1 : d.dli_fname;
    struct seen c = find(fn);
    CHECK(c.holders == 1);
    CHECK_STR(c.name, base);
    CHECK(cl_span_has(&c.bounds, 1, (uintptr_t)fn));
    CHECK(cl_span_has(&c.bounds, 1, (uintptr_t)d.dli_fbase));
    /* a message of the C library's own (not copied into the program) */
    const char *text = strerror(EINVAL);
    Dl_info t;
    CHECK(dladdr(text, &t) && t.dli_fbase == d.dli_fbase);
    CHECK(cl_span_has(&c.bounds, 1, (uintptr_t)text));
    CHECK(c.nexec >= 1 && !c.left);
    CHECK(cl_span_has(c.exec, c.nexec, (uintptr_t)fn));
    CHECK(!cl_span_has(c.exec, c.nexec, (uintptr_t)text));
    for (size_t i = 0; i < c.nexec; i++)
      CHECK(c.exec[i].lo < c.exec[i].hi && c.exec[i].lo >= c.bounds.lo &&
            c.exec[i].hi <= c.bounds.hi);
  }

  /* the stack is no object's */
  int local = 0;
  CHECK(find(&local).holders == 0);

  /* [lo, hi) */
  struct cl_span s[2] = {{10, 20}, {30, 31}};
  CHECK(!cl_span_has(s, 0, 10));
  CHECK(cl_span_has(s, 2, 10) && cl_span_has(s, 2, 19) && cl_span_has(s, 2, 30));
  CHECK(!cl_span_has(s, 2, 20) && !cl_span_has(s, 2, 9) && !cl_span_has(s, 2, 31));
  CHECK(!cl_span_has(s, 1, 30));
  CHECK(local_function(1) == 2);
  UNIT_DONE();
}

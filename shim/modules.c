/* modules.c - lists the objects loaded in the process (path, mapped range,
 * load bias, GNU build id) so that cudalens-report can resolve recorded
 * return addresses offline. */
#define _GNU_SOURCE
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudalens/buildid.h"
#include "modules.h"
#include "objects.h"
#include "shim.h"

struct scan {
  struct cl_module *mods;
  int n, cap;
};

static int add(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  struct scan *s = arg;
  struct cl_span b;
  if (!cl_object_bounds(info, &b))
    return 0;
  if (s->n == s->cap) {
    int nc = s->cap ? s->cap * 2 : 64;
    struct cl_module *m = realloc(s->mods, (size_t)nc * sizeof *m);
    if (!m)
      return 1;
    s->mods = m;
    s->cap = nc;
  }
  struct cl_module *m = &s->mods[s->n];
  const char *path = info->dlpi_name;
  char exe[4096];
  if (!path || !*path) { /* the main program */
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = 0;
    path = exe;
  }
  if (!*path || !strncmp(path, "linux-vdso", 10))
    return 0;
  m->path = strdup(path);
  if (!m->path)
    return 1;
  m->start = b.lo;
  m->end = b.hi;
  m->bias = info->dlpi_addr;
  cl_build_id(info, m->build_id);
  s->n++;
  return 0;
}

int cl_modules_scan(struct cl_module **mods)
{
  struct scan s = {0};
  dl_iterate_phdr(add, &s);
  *mods = s.mods;
  return s.n;
}

void cl_modules_free(struct cl_module *mods, int n)
{
  for (int i = 0; i < n; i++)
    free(mods[i].path);
  free(mods);
}

/* cudaload.c - is CUDA loaded in this process, and which runtime?  Looks at
 * the loaded objects for the driver (libcuda.so.1) and a shared CUDA runtime
 * (libcudart.so.N); a program with the static runtime shows the driver only
 * once the runtime loads it.  Cheap when nothing was loaded since the last
 * look, so that it can run after every dlopen(). */
#define _GNU_SOURCE
#include <link.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

static _Atomic unsigned long long seen_adds;

struct look {
  struct cl_cuda_found *f;
  int first, unchanged;
};

static const char *base_of(const char *path)
{
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* N of "...so.N[...]", or 0 */
static int so_major(const char *base)
{
  const char *v = strstr(base, ".so.");
  return v ? atoi(v + 4) : 0;
}

int cl_cuda_runtime_major(const char *path)
{
  int major = so_major(base_of(path));
  char real[PATH_MAX];
  if (!major && realpath(path, real)) /* libcudart.so, a link */
    major = so_major(base_of(real));
  return major;
}

/* libcuda.so.1; libcudart.so.N, or libcudart-HASH.so.N as wheels repaired
 * by auditwheel carry it */
int cl_cuda_lib_kind(const char *path)
{
  const char *b = base_of(path);
  if (!strcmp(b, "libcuda.so.1") || !strcmp(b, "libcuda.so"))
    return 1;
  if (!strncmp(b, "libcudart", 9) &&
      (!strncmp(b + 9, ".so", 3) || (b[9] == '-' && strstr(b, ".so"))))
    return 2;
  return 0;
}

static int look_at(struct dl_phdr_info *info, size_t size, void *arg)
{
  struct look *l = arg;
  if (l->first) {
    l->first = 0;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) &&
        info->dlpi_adds == atomic_load(&seen_adds)) {
      l->unchanged = 1;
      return 1; /* nothing loaded since the last look */
    }
    atomic_store(&seen_adds, info->dlpi_adds);
  }
  const char *name = info->dlpi_name;
  if (!name || !*name)
    return 0;
  switch (cl_cuda_lib_kind(name)) {
  case 1:
    l->f->driver = 1;
    break;
  case 2:
    if (!l->f->runtime[0] && strlen(name) < sizeof l->f->runtime) {
      strcpy(l->f->runtime, name);
      l->f->runtime_major = cl_cuda_runtime_major(name);
    }
    break;
  }
  return 0;
}

int cl_cuda_scan(struct cl_cuda_found *f)
{
  memset(f, 0, sizeof *f);
  struct look l = {f, 1, 0};
  dl_iterate_phdr(look_at, &l);
  return !l.unchanged && (f->driver || f->runtime[0]);
}

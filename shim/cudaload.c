/* cudaload.c - is CUDA loaded in this process, and which runtime?  Looks at
 * the loaded objects for the driver (libcuda.so.1) and a shared CUDA runtime
 * (libcudart.so.N); a program with the static runtime shows the driver only
 * once the runtime loads it.  Cheap when nothing was loaded since the last
 * look, so that it can run after every dlopen(): that test is
 * cl_loaded_walk's, which nccl_load.c's look at the same list shares. */
#define _GNU_SOURCE
#include <link.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cudaload.h"
#include "shim.h"

/* ---- the loaded objects, when some were loaded since the last walk ------- */
struct walk {
  _Atomic unsigned long long *seen;
  int started, unchanged; /* both 0 at first: GCC merged {1, 0} into a
                            * constant loaded from .rodata, a fault */
  int (*fn)(struct dl_phdr_info *, void *);
  void *arg;
};

CL_STARTUP_CODE static int walk_one(struct dl_phdr_info *info, size_t size, void *arg)
{
  struct walk *w = arg;
  if (!w->started) {
    w->started = 1;
    /* dlpi_adds counts the loads of the process (glibc, since 2.4) */
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) &&
        info->dlpi_adds == atomic_load(w->seen)) {
      w->unchanged = 1;
      return 1; /* nothing loaded since the last walk */
    }
    atomic_store(w->seen, info->dlpi_adds);
  }
  return w->fn(info, w->arg);
}

/* this thread's walks in progress (cl_loaded_walking) */
static __thread int walking;

int cl_loaded_walk(_Atomic unsigned long long *seen,
                   int (*fn)(struct dl_phdr_info *, void *), void *arg)
{
  struct walk w = {seen, 0, 0, fn, arg};
  walking++;
  dl_iterate_phdr(walk_one, &w);
  walking--;
  return !w.unchanged;
}

int cl_loaded_walking(void) { return walking; }

/* ---- CUDA among them ----------------------------------------------------- */
/* cl_cuda_appeared's walks */
static _Atomic unsigned long long seen_adds CL_STARTUP_DATA;

/* (a loop, not strrchr: cl_cuda_lib_kind runs at start in every process;
 * shim.h's cl_starts_with says why) */
static const char *base_of(const char *path)
{
  const char *b = path;
  for (const char *s = path; *s; s++)
    if (*s == '/')
      b = s + 1;
  return b;
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
CL_STARTUP_CODE int cl_cuda_lib_kind(const char *path)
{
  const char *b = base_of(path);
  if (cl_str_eq(b, CL_STARTUP_STR("libcuda.so.1")) ||
      cl_str_eq(b, CL_STARTUP_STR("libcuda.so")))
    return 1;
  if (cl_starts_with(b, CL_STARTUP_STR("libcudart")) &&
      (cl_starts_with(b + 9, CL_STARTUP_STR(".so")) ||
       (b[9] == '-' && strstr(b, CL_STARTUP_STR(".so")))))
    return 2;
  return 0;
}

static int look_at(struct dl_phdr_info *info, void *arg)
{
  struct cl_cuda_found *f = arg;
  const char *name = info->dlpi_name;
  if (!name || !*name)
    return 0;
  switch (cl_cuda_lib_kind(name)) {
  case 1:
    f->driver = 1;
    break;
  case 2:
    if (!f->runtime[0] && strlen(name) < sizeof f->runtime) {
      strcpy(f->runtime, name);
      f->runtime_major = cl_cuda_runtime_major(name);
    }
    break;
  }
  return 0;
}

static int look_at_each(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  return look_at(info, arg);
}

int cl_cuda_scan(struct cl_cuda_found *f)
{
  memset(f, 0, sizeof *f);
  dl_iterate_phdr(look_at_each, f);
  return f->driver || f->runtime[0];
}

/* the driver or a runtime among the loaded objects (no path copied: the
 * look that every process makes at start-up and after each dlopen() keeps
 * 4 KiB off the stack, which would fault in a page there; issue 24, item
 * 10) */
CL_STARTUP_CODE static int is_cuda(struct dl_phdr_info *info, void *arg)
{
  int *found = arg;
  const char *name = info->dlpi_name;
  if (name && *name && cl_cuda_lib_kind(name))
    *found = 1;
  return *found;
}

CL_STARTUP_CODE int cl_cuda_appeared(void)
{
  int found = 0;
  return cl_loaded_walk(&seen_adds, is_cuda, &found) && found;
}

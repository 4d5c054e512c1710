/* cupti_bind.c - finds and loads the CUPTI that matches the CUDA runtime the
 * program loaded, and binds the functions the shim uses.  The CUPTI major
 * version is the runtime's (libcupti.so.12 for libcudart.so.12); without a
 * shared runtime (static runtime, driver API) it is the one cudalens was
 * built with.  Tried in order: CUDALENS_CUPTI_LIBRARY alone when set; a
 * libcupti.so.N already loaded; next to the runtime (its directory, then the
 * pip wheels' ../../cuda_cupti/lib, the toolkit's ../extras/CUPTI/lib64);
 * $CUDA_HOME and $CUDA_PATH; the loader's path; the directory configure
 * found (for the major version cudalens was built with). */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cudaload.h"
#include "cupti.h"
#include "cupti_bind.h"

#define BUILD_MAJOR (CUDA_VERSION / 1000)

struct cl_cupti_api cl_cupti;

const char *cl_cupti_error(CUptiResult r)
{
  const char *s = NULL;
  if (!cl_cupti.cuptiGetResultString || cl_cupti.cuptiGetResultString(r, &s) ||
      !s)
    return "unknown CUPTI error";
  return s;
}

/* Where to look, most specific first: appends "DIR/NAME" paths (or NAME
 * alone for the loader's path) to out; returns how many. */
int cl_cupti_candidates(const char *runtime, int major, const char *cuda_home,
                        const char *cuda_path, char out[][PATH_MAX], int max)
{
  char name[32];
  snprintf(name, sizeof name, "libcupti.so.%d", major);
  int n = 0;
#define ADD(...)                                                               \
  do {                                                                         \
    if (n < max && snprintf(out[n], PATH_MAX, __VA_ARGS__) < PATH_MAX)        \
      n++;                                                                     \
  } while (0)
  if (runtime && *runtime) {
    char dirs[2][PATH_MAX];
    int nd = 0;
    const char *slash = strrchr(runtime, '/');
    if (slash) {
      snprintf(dirs[nd++], PATH_MAX, "%.*s", (int)(slash - runtime), runtime);
      /* and where the file really is, when the runtime was a link */
      char real[PATH_MAX], *rs;
      if (realpath(runtime, real) && (rs = strrchr(real, '/'))) {
        *rs = 0;
        if (strcmp(real, dirs[0]))
          snprintf(dirs[nd++], PATH_MAX, "%s", real);
      }
    }
    for (int i = 0; i < nd; i++) {
      ADD("%s/%s", dirs[i], name);                        /* toolkit, cu13 */
      ADD("%s/../../cuda_cupti/lib/%s", dirs[i], name);   /* nvidia-*-cu12 */
      ADD("%s/../extras/CUPTI/lib64/%s", dirs[i], name);  /* older toolkits */
    }
  }
  const char *homes[2] = {cuda_home, cuda_path};
  for (int i = 0; i < 2; i++) {
    if (!homes[i] || !*homes[i])
      continue;
    ADD("%s/lib64/%s", homes[i], name);
    ADD("%s/extras/CUPTI/lib64/%s", homes[i], name);
    ADD("%s/lib/%s", homes[i], name);
  }
  ADD("%s", name); /* the loader's path */
  if (major == BUILD_MAJOR)
    ADD("%s/%s", CL_CUPTI_LIBDIR, name);
#undef ADD
  return n;
}

/* dlopen() a candidate that exists (or a bare name); the first error of a
 * CUPTI that exists but does not load goes into err. */
static void *load(const char *path, char *err, size_t errsz)
{
  int bare = !strchr(path, '/');
  if (!bare && access(path, F_OK))
    return NULL;
  void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  const char *e = h ? NULL : dlerror();
  if (e && !bare && !err[0])
    snprintf(err, errsz, ": %s", e);
  return h;
}

int cl_cupti_bind(const struct cl_cuda_found *f, char *why, size_t whysz)
{
  void *h = NULL;
  char err[512] = "";
  int major = f->runtime_major ? f->runtime_major : BUILD_MAJOR;
  if (cl_cfg.cupti_library) {
    if (!(h = dlopen(cl_cfg.cupti_library, RTLD_NOW | RTLD_GLOBAL))) {
      snprintf(why, whysz, "cannot load CUPTI (CUDALENS_CUPTI_LIBRARY=%s): %s",
               cl_cfg.cupti_library, dlerror());
      return -1;
    }
  } else {
    char name[32];
    snprintf(name, sizeof name, "libcupti.so.%d", major);
    if ((h = dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)))
      CL_LOG(CL_LOG_INFO, "CUPTI: %s, already loaded", name);
    /* not on the stack: this may run on a thread with a small one */
    char (*cand)[PATH_MAX] = h ? NULL : malloc(16 * sizeof *cand);
    int n = cand ? cl_cupti_candidates(f->runtime, major, getenv("CUDA_HOME"),
                                       getenv("CUDA_PATH"), cand, 16)
                 : 0;
    for (int i = 0; i < n && !h; i++)
      if ((h = load(cand[i], err, sizeof err)))
        CL_LOG(CL_LOG_INFO, "CUPTI: %s", cand[i]);
    free(cand);
    if (!h) {
      if (f->runtime[0])
        snprintf(why, whysz,
                 "cannot find CUPTI %d for the CUDA %d runtime %s (%s was "
                 "looked for next to it, in $CUDA_HOME, $CUDA_PATH, on the "
                 "loader's path%s; set CUDALENS_CUPTI_LIBRARY)%s",
                 major, major, f->runtime, name,
                 major == BUILD_MAJOR ? " and in " CL_CUPTI_LIBDIR : "", err);
      else
        snprintf(why, whysz,
                 "cannot find CUPTI %d (%s was looked for in $CUDA_HOME, "
                 "$CUDA_PATH, on the loader's path and in " CL_CUPTI_LIBDIR
                 "; set CUDALENS_CUPTI_LIBRARY)%s",
                 major, name, err);
      return -1;
    }
  }
#define CL_CUPTI_BIND(name, args)                                              \
  if (!(*(void **)&cl_cupti.name = cl_dl_sym_real(h, #name))) {                \
    snprintf(why, whysz, "CUPTI library lacks %s", #name);                     \
    return -1;                                                                 \
  }
  CL_CUPTI_FUNCS(CL_CUPTI_BIND)
#undef CL_CUPTI_BIND
  return 0;
}

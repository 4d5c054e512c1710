/* cupti_bind.c - loads libcupti and binds the functions the shim uses.  Tried
 * in order: CUDALENS_CUPTI_LIBRARY, libcupti.so.13 on the loader's path (or
 * already loaded by the program), then the CUPTI directory configure found. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#include "config.h"
#include "cupti.h"

struct cl_cupti_api cl_cupti;

const char *cl_cupti_error(CUptiResult r)
{
  const char *s = NULL;
  if (!cl_cupti.cuptiGetResultString || cl_cupti.cuptiGetResultString(r, &s) ||
      !s)
    return "unknown CUPTI error";
  return s;
}

int cl_cupti_bind(const struct cl_cuda_found *f, char *why, size_t whysz)
{
  (void)f;
  const char *tried[3];
  int ntried = 0;
  void *h = NULL;
  if (cl_cfg.cupti_library) {
    tried[ntried++] = cl_cfg.cupti_library;
    h = dlopen(cl_cfg.cupti_library, RTLD_NOW | RTLD_GLOBAL);
  } else {
    tried[ntried++] = "libcupti.so.13";
    h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
      tried[ntried++] = CL_CUPTI_LIBDIR "/libcupti.so.13";
      h = dlopen(CL_CUPTI_LIBDIR "/libcupti.so.13", RTLD_NOW | RTLD_GLOBAL);
    }
  }
  if (!h) {
    snprintf(why, whysz, "cannot load CUPTI (%s%s%s): %s", tried[0],
             ntried > 1 ? ", " : "", ntried > 1 ? tried[1] : "", dlerror());
    return -1;
  }
#define CL_CUPTI_BIND(name, args)                                              \
  if (!(*(void **)&cl_cupti.name = dlsym(h, #name))) {                         \
    snprintf(why, whysz, "CUPTI library lacks %s", #name);                     \
    return -1;                                                                 \
  }
  CL_CUPTI_FUNCS(CL_CUPTI_BIND)
#undef CL_CUPTI_BIND
  return 0;
}

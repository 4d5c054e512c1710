/* realsym.c - the next definition of a function the shim wraps (CL_REAL in
 * shim.h), found with the C library's dlsym, never through the shim's own
 * dlsym wrapper (dlhook.c): that wrapper may start the shim, and a lookup
 * from a wrapped function the shim itself calls while it configures (the
 * fstat() of log.c) would wait on its own pthread_once forever.  dlvsym is
 * not interposed; the version names are glibc's for dlsym (the first since
 * 2.34, the second before).  RTLD_NEXT is relative to the caller of dlsym:
 * this file, in the shim. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "shim.h"

#if defined(__x86_64__)
#define CL_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define CL_GLIBC_BASE "GLIBC_2.17"
#endif

typedef void *(*dlsym_fn)(void *, const char *);

void *cl_next_sym(const char *name)
{
#ifdef CL_GLIBC_BASE
  static dlsym_fn real;
  dlsym_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
  if (!f) {
    f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!f)
      f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", CL_GLIBC_BASE);
    if (!f)
      return NULL;
    __atomic_store_n(&real, f, __ATOMIC_RELEASE);
  }
  return f(RTLD_NEXT, name);
#else
  return dlsym(RTLD_NEXT, name); /* not interposed here (dlhook.c) */
#endif
}

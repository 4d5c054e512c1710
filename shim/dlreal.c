/* dlreal.c - the C library's dlopen and dlsym, for the shim's own lookups.
 * The shim interposes dlopen and dlsym (dlhook.c) to notice CUDA and NCCL
 * being loaded; its own lookups (the real read, write, _exit... of its
 * wrappers, made in signal handlers and under its locks; CUPTI's and the
 * driver's functions) must not run that hook, so they call these.  Bound
 * once, lock-free, before any constructor if need be. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "shim.h"

/* the real functions; also read by dlhook.c's stubs (aligned pointer loads) */
void *cl_real_dlopen CL_HIDDEN CL_STARTUP_DATA;
void *cl_real_dlsym CL_HIDDEN CL_STARTUP_DATA;

#if defined(__x86_64__)
#define CL_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define CL_GLIBC_BASE "GLIBC_2.17"
#endif

#ifdef CL_GLIBC_BASE
/* Stands in for a real function that cannot be found (not glibc?): fails
 * like dlopen/dlsym do rather than jumping to NULL. */
static void *unavailable(void) { return NULL; }

/* Binds the real functions; idempotent and lock-free, safe before the
 * shim's constructor ran (other libraries' constructors may dlopen first).
 * dlvsym is not interposed, so it reaches glibc's; the version names are
 * glibc's for dlsym (the first since 2.34, the second before). */
CL_STARTUP_CODE void cl_dl_bind_real(void)
{
  if (__atomic_load_n(&cl_real_dlopen, __ATOMIC_ACQUIRE))
    return;
  void *sym = dlvsym(RTLD_NEXT, CL_STARTUP_STR("dlsym"),
               CL_STARTUP_STR("GLIBC_2.34"));
  if (!sym)
    sym = dlvsym(RTLD_NEXT, CL_STARTUP_STR("dlsym"),
                 CL_STARTUP_STR(CL_GLIBC_BASE));
  void *open = NULL;
  if (sym)
    open = ((void *(*)(void *, const char *))sym)(RTLD_NEXT, CL_STARTUP_STR("dlopen"));
  if (!sym || !open) {
    cl_log_write(CL_LOG_ERROR, "cannot find the C library's dlopen and "
                               "dlsym; they will fail in this process");
    sym = sym ? sym : (void *)unavailable;
    open = open ? open : (void *)unavailable;
  }
  __atomic_store_n(&cl_real_dlsym, sym, __ATOMIC_RELEASE);
  __atomic_store_n(&cl_real_dlopen, open, __ATOMIC_RELEASE);
}

void *cl_dl_open_real(const char *file, int mode)
{
  cl_dl_bind_real();
  return ((void *(*)(const char *, int))cl_real_dlopen)(file, mode);
}

/* RTLD_NEXT is resolved from the shim (this call's return address) */
CL_STARTUP_CODE void *cl_dl_sym_real(void *handle, const char *name)
{
  cl_dl_bind_real();
  return ((void *(*)(void *, const char *))cl_real_dlsym)(handle, name);
}
#else /* nothing is interposed (dlhook.c) */
void cl_dl_bind_real(void) {}
void *cl_dl_open_real(const char *file, int mode) { return dlopen(file, mode); }
void *cl_dl_sym_real(void *handle, const char *name)
{
  return dlsym(handle, name);
}
#endif

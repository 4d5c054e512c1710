/* lazyintercept.c - a stand-in for a sanitizer runtime that starts at its
 * first intercepted call (MemorySanitizer does), for
 * tests/capture/lazy_intercept.test.  Preloaded after the shim, it defines
 * dl_iterate_phdr; its first call binds the C library's with
 * dlsym(RTLD_NEXT), which is the shim's dlsym, and a call made meanwhile
 * goes to the pointer not yet bound (NULL), as a starting sanitizer's
 * interceptor does. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>

typedef int (*iterate_fn)(int (*)(struct dl_phdr_info *, size_t, void *),
                          void *);
static iterate_fn real;
static int binding;

int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *),
                    void *arg)
{
  if (!real && !binding) {
    binding = 1;
    real = (iterate_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
    binding = 0;
  }
  return real(cb, arg);
}

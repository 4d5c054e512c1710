/* demangle.c - cl_demangle(): __cxa_demangle for names that look mangled
 * ("_Z..."), a plain copy for the rest (C functions, extern "C" kernels). */
#include "demangle.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* from libstdc++ (cxxabi.h is C++ only) */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
                            int *status);

char *cl_demangle(const char *name)
{
  if (!name)
    return NULL;
  if (strncmp(name, "_Z", 2) == 0) {
    int status = -1;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (status == 0 && d)
      return d;
    free(d);
  }
  return xstrdup(name);
}

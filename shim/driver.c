/* driver.c - finds CUDA driver API functions in the libcuda.so.1 the program
 * already loaded (the shim never loads the driver itself). */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "driver.h"
#include "shim.h"

void *cl_driver_sym(const char *name)
{
  static void *handle;
  if (!handle)
    handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  void *f = handle ? cl_dl_sym_real(handle, name) : NULL;
  if (!f)
    f = cl_dl_sym_real(RTLD_DEFAULT, name);
  return f;
}

/* lateplugin.c - a plugin for tests/capture/lateload.c: a library linked to
 * the CUDA runtime whose constructor registers its work function with the
 * program that dlopen()s it, so that the program calls CUDA code without
 * ever calling dlsym (plugin registries work this way). */
#include <cuda_runtime_api.h>

void cl_register(int (*work)(void));

static int work(void)
{
  static char host[4096];
  void *d = 0;
  if (cudaMalloc(&d, sizeof host) ||
      cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice) ||
      cudaDeviceSynchronize() || cudaFree(d))
    return 1;
  return 0;
}

__attribute__((constructor)) static void plugin_init(void)
{
  cl_register(work);
}

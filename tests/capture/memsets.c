/* memsets.c - a program that makes N CUDA calls (cudaMemset) on the
 * runtime it loads with dlopen, and prints how many; for the tests of the
 * recorder's own troubles (tests/capture/diskfull.test). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  void *rt = dlopen("libcudart.so.13", RTLD_NOW);
  if (!rt) {
    fprintf(stderr, "memsets: %s\n", dlerror());
    return 2;
  }
  int (*malloc_)(void **, size_t) =
      (int (*)(void **, size_t))dlsym(rt, "cudaMalloc");
  int (*memset_)(void *, int, size_t) =
      (int (*)(void *, int, size_t))dlsym(rt, "cudaMemset");
  void *d = NULL;
  if (!malloc_ || !memset_ || malloc_(&d, 4096))
    return 2;
  for (int i = 0; i < n; i++)
    if (memset_(d, i & 0xff, 4096))
      return 2;
  printf("%d CUDA calls\n", n + 1);
  return 0;
}

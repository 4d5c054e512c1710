/* memsets.c - a program that makes N CUDA calls (cudaMemset) on the
 * runtime it loads with dlopen, and prints how many; for the tests of the
 * recorder's own troubles (tests/capture/diskfull.test, stderr.test).
 *
 *   memsets N [DATA]   with DATA: closes descriptor 2 first and opens the
 *                      file DATA, which takes its number, and writes its
 *                      data there: "data" before the calls, "end" after */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put(const char *s)
{
  ssize_t r = write(2, s, strlen(s));
  (void)r;
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  if (argc > 2) {
    close(2);
    if (open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644) != 2)
      return 2;
    put("data\n");
  }
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
  if (argc > 2)
    put("end\n");
  return 0;
}

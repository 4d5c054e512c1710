/* lateload.c - a program that loads the CUDA runtime only after start-up,
 * the way Python (ctypes, extension modules) and plugin hosts do, for
 * tests/capture/lateload.test.  Built without nvcc and without linking CUDA:
 *
 *   lateload name            dlopen("libcudart.so.13"), dlsym, CUDA work
 *   lateload path FILE       dlopen(FILE) by path, dlsym, CUDA work
 *   lateload thread          dlopen on one thread, CUDA work on another
 *   lateload plugin FILE     dlopen(FILE), a library linked to the runtime
 *                            whose constructor registers its work function
 *                            with cl_register (no dlsym), then runs it
 *   lateload nvtx            names this thread "early" through NVTX, then
 *                            as name (the name is given before CUDA loads)
 *   lateload chdir DIR       chdir(DIR), then as name (the working
 *                            directory changes before CUDA loads)
 *   lateload none            dlopen of libm only: no CUDA at all
 *   lateload open FILE       dlopen(FILE) only
 *
 * "CUDA work": cudaMalloc, cudaMemcpy host to device, cudaDeviceSynchronize,
 * cudaFree.  Prints one line; exits 1 when a step fails. */
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef int (*malloc_fn)(void **, size_t);
typedef int (*memcpy_fn)(void *, const void *, size_t, int);
typedef int (*sync_fn)(void);
typedef int (*free_fn)(void *);

static void *rt;
static int (*registered)(void);

/* called by the plugin's constructor (the program is linked -rdynamic) */
void cl_register(int (*work)(void)) { registered = work; }

static int work(void)
{
  malloc_fn m = (malloc_fn)dlsym(rt, "cudaMalloc");
  memcpy_fn c = (memcpy_fn)dlsym(rt, "cudaMemcpy");
  sync_fn s = (sync_fn)dlsym(rt, "cudaDeviceSynchronize");
  free_fn f = (free_fn)dlsym(rt, "cudaFree");
  if (!m || !c || !s || !f) {
    printf("dlsym: %s\n", dlerror());
    return 1;
  }
  static char host[4096];
  void *d = NULL;
  if (m(&d, sizeof host) || c(d, host, sizeof host, 1) || s() || f(d)) {
    printf("CUDA work failed\n");
    return 1;
  }
  return 0;
}

static void *load(void *name)
{
  rt = dlopen(name, RTLD_NOW);
  return NULL;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  const char *file = argc > 2 ? argv[2] : "libcudart.so.13";
  if (!strcmp(mode, "none")) {
    void *h = dlopen("libm.so.6", RTLD_NOW);
    printf("lateload none: %s\n", h && dlsym(h, "cos") ? "ok" : "failed");
    return h ? 0 : 1;
  }
  if (!strcmp(mode, "open")) {
    void *h = dlopen(file, RTLD_NOW);
    printf("lateload open: %s\n", h ? "ok" : dlerror());
    return h ? 0 : 1;
  }
  if (!strcmp(mode, "plugin")) {
    if (!dlopen(file, RTLD_NOW) || !registered) {
      printf("plugin: %s\n", registered ? "?" : dlerror());
      return 1;
    }
    int rc = registered();
    printf("lateload plugin: %s\n", rc ? "failed" : "ok");
    return rc;
  }
  if (!strcmp(mode, "thread")) {
    pthread_t t;
    if (pthread_create(&t, NULL, load, (void *)file) || pthread_join(t, NULL))
      return 1;
  } else if (!strcmp(mode, "name") || !strcmp(mode, "path")) {
    load((void *)file);
  } else if (!strcmp(mode, "chdir")) {
    if (argc < 3 || chdir(argv[2])) {
      printf("chdir: failed\n");
      return 1;
    }
    load((void *)"libcudart.so.13");
  } else if (!strcmp(mode, "nvtx")) {
    nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "early");
    load((void *)file);
  } else {
    fprintf(stderr, "usage: lateload name|path FILE|chdir DIR|thread|nvtx|plugin FILE|none|open FILE\n");
    return 2;
  }
  if (!rt) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  int rc = work();
  printf("lateload %s: %s\n", mode, rc ? "failed" : "ok");
  return rc;
}

/* driver_floor.c - an experiment of issue 11, not part of cudalens: how cheap
 * could capture be without CUPTI's callbacks?  An LD_PRELOAD library that
 * sits where both CUDA runtimes (static and shared) reach the driver: they
 * dlopen libcuda.so.1, dlsym its cuGetProcAddress(_v2) and ask that for
 * every driver function.  dlsym() is interposed to hand out a wrapper of
 * cuGetProcAddress, which hands out wrappers of the kernel launch functions
 * (cuLaunchKernel, cuLaunchKernelEx, in their default-stream and
 * per-thread-default-stream forms); the same functions are exported for
 * programs linked with -lcuda.  A wrapper counts the call, takes two
 * timestamps around it (what recording a call's start and end needs) and
 * calls through.  At exit it prints how many launches it saw and how often
 * cuGetProcAddress was asked (for launch functions among others): a run
 * whose launches went another way (through an export table, say) prints 0
 * launches and measures nothing.  Run it with bench/run.sh --floor, beside the CUPTI
 * floor:
 *
 *   cc -shared -fPIC -O2 -I$CUDA/include bench/driver_floor.c \
 *      -o driver_floor.so -ldl
 *
 * Limits of the experiment: dlsym(RTLD_NEXT, ...) called by the program is
 * answered as if called from here (the shim's dlhook.c avoids that with
 * assembler stubs); only launches are wrapped, no stacks or records are
 * taken, nothing is written. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static _Atomic unsigned long launches;
static _Atomic unsigned long lookups, launch_lookups; /* cuGetProcAddress */
static _Atomic unsigned long long stamp_sum; /* keeps the timestamps alive */

static inline unsigned long long now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

#define AROUND(call)                                                           \
  unsigned long long t0 = now_ns();                                            \
  CUresult r = call;                                                           \
  atomic_fetch_add_explicit(&stamp_sum, now_ns() - t0, memory_order_relaxed); \
  atomic_fetch_add_explicit(&launches, 1, memory_order_relaxed);              \
  return r;

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned,
                              unsigned, unsigned, unsigned, unsigned,
                              CUstream, void **, void **);
typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **,
                                 void **);
/* [0] default stream semantics, [1] per-thread default stream */
static launch_fn real_launch[2];
static launch_ex_fn real_launch_ex[2];

#define LAUNCH_WRAPPER(i)                                                      \
  static CUresult launch##i(CUfunction f, unsigned gx, unsigned gy,            \
                            unsigned gz, unsigned bx, unsigned by,             \
                            unsigned bz, unsigned shm, CUstream s, void **p,   \
                            void **e)                                          \
  {                                                                            \
    AROUND(real_launch[i](f, gx, gy, gz, bx, by, bz, shm, s, p, e))            \
  }                                                                            \
  static CUresult launch_ex##i(const CUlaunchConfig *c, CUfunction f,          \
                               void **p, void **e)                             \
  {                                                                            \
    AROUND(real_launch_ex[i](c, f, p, e))                                      \
  }
LAUNCH_WRAPPER(0)
LAUNCH_WRAPPER(1)

typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t,
                            CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);
static gpa2_fn real_gpa2;
static gpa1_fn real_gpa1;

/* What cuGetProcAddress found for symbol: swapped for a wrapper when it is
 * a launch function. */
static void swap(const char *symbol, void **pfn, cuuint64_t flags)
{
  atomic_fetch_add(&lookups, 1);
  if (!pfn || !*pfn)
    return;
  int ptds = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  if (!strncmp(symbol, "cuLaunchKernel", 14))
    atomic_fetch_add(&launch_lookups, 1);
  if (!strcmp(symbol, "cuLaunchKernel")) {
    real_launch[ptds] = (launch_fn)*pfn;
    *pfn = ptds ? (void *)launch1 : (void *)launch0;
  } else if (!strcmp(symbol, "cuLaunchKernelEx")) {
    real_launch_ex[ptds] = (launch_ex_fn)*pfn;
    *pfn = ptds ? (void *)launch_ex1 : (void *)launch_ex0;
  }
}

static CUresult gpa2(const char *symbol, void **pfn, int version,
                     cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
  CUresult r = real_gpa2(symbol, pfn, version, flags, status);
  if (r == CUDA_SUCCESS)
    swap(symbol, pfn, flags);
  return r;
}

static CUresult gpa1(const char *symbol, void **pfn, int version,
                     cuuint64_t flags)
{
  CUresult r = real_gpa1(symbol, pfn, version, flags);
  if (r == CUDA_SUCCESS)
    swap(symbol, pfn, flags);
  return r;
}

static void *(*real_dlsym)(void *, const char *);

static void bind_dlsym(void)
{
  if (!real_dlsym)
    real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym",
                                                         "GLIBC_2.34");
  if (!real_dlsym)
    real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym",
                                                         "GLIBC_2.2.5");
}

void *dlsym(void *handle, const char *name)
{
  bind_dlsym();
  void *p = real_dlsym(handle, name);
  if (!p)
    return p;
  if (!strcmp(name, "cuGetProcAddress_v2")) {
    real_gpa2 = (gpa2_fn)p;
    return (void *)gpa2;
  }
  if (!strcmp(name, "cuGetProcAddress")) {
    real_gpa1 = (gpa1_fn)p;
    return (void *)gpa1;
  }
  return p;
}

/* driver-API programs linked with -lcuda */
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shm,
                        CUstream s, void **p, void **e)
{
  bind_dlsym();
  if (!real_launch[0])
    real_launch[0] = (launch_fn)real_dlsym(RTLD_NEXT, "cuLaunchKernel");
  return launch0(f, gx, gy, gz, bx, by, bz, shm, s, p, e);
}

__attribute__((destructor)) static void report(void)
{
  fprintf(stderr, "driver_floor: %lu kernel launches seen; cuGetProcAddress "
          "asked %lu times (%s), %lu of them for cuLaunchKernel*\n",
          atomic_load(&launches), atomic_load(&lookups),
          real_gpa2 || real_gpa1 ? "interposed" : "never reached through dlsym",
          atomic_load(&launch_lookups));
}

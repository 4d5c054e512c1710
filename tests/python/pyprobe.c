/* pyprobe.c - a test hook into the recorder's Python frame walker
 * (shim/pyframes.c), loaded with ctypes by tests/python/pyframes.py: capture
 * the calling thread's Python stack as the recorder would inside a CUDA
 * call, from a Python thread (with or without the GIL) or from a thread that
 * runs no Python, and time repeated captures. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "shim/pyframes.h"
#include "shim/shim.h"

#define PROBE_EXPORT __attribute__((visibility("default")))

struct lookup {
  uint32_t id;
  char *out;
  size_t n;
};

static void find(uint32_t id, const char *s, void *arg)
{
  struct lookup *l = arg;
  if (id == l->id)
    snprintf(l->out, l->n, "%s", s);
}

/* The id of the captured stack (0: none) and its text in out. */
PROBE_EXPORT unsigned probe_capture(char *out, size_t n)
{
  uint32_t id = cl_pystack_capture();
  struct lookup l = {id, out, n};
  uint32_t watermark = 0;
  if (n)
    out[0] = 0;
  if (id)
    cl_strings_drain(&watermark, find, &l);
  return id;
}

static void *thread_main(void *arg)
{
  *(uint32_t *)arg = cl_pystack_capture();
  return NULL;
}

/* A capture from a thread that never ran Python: expected 0. */
PROBE_EXPORT unsigned probe_capture_in_thread(void)
{
  pthread_t t;
  uint32_t id = 0xffffffffu;
  if (pthread_create(&t, NULL, thread_main, &id))
    return 0xfffffffeu;
  pthread_join(t, NULL);
  return id;
}

/* The captures of this thread that were not in its cache (pyframes.h). */
PROBE_EXPORT unsigned long probe_built(void) { return cl_pystack_built(); }

/* Nanoseconds per capture over iters captures from the same site. */
PROBE_EXPORT double probe_bench(int iters)
{
  struct timespec a, b;
  volatile uint32_t sink = 0;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < iters; i++)
    sink += cl_pystack_capture();
  clock_gettime(CLOCK_MONOTONIC, &b);
  (void)sink;
  return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
         (iters > 0 ? iters : 1);
}

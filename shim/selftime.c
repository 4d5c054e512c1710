/* selftime.c - the counters of selftime.h and their report at exit (only in
 * a -DCUDALENS_SELFTIME build).  TSC cycles become nanoseconds by the
 * cycles and CLOCK_MONOTONIC time elapsed between load and exit; each
 * thread counts in a block of its own (selftime.h), summed here. */
#include "selftime.h"

#ifdef CUDALENS_SELFTIME
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__thread struct cl_phase_block *cl_phase_mine;
static _Atomic(struct cl_phase_block *) blocks;
static struct cl_phase_block lost; /* counted where no block could be made */

struct cl_phase_block *cl_phase_block_new(void)
{
  struct cl_phase_block *b = calloc(1, sizeof *b);
  if (!b)
    return &lost; /* (not summed: rare, and racy if shared) */
  b->next = atomic_load(&blocks);
  while (!atomic_compare_exchange_weak(&blocks, &b->next, b))
    ;
  return cl_phase_mine = b;
}

static const char *const names[CL_PH_COUNT] = {
#define CL_PHASE_NAME(id, name) name,
    CL_PHASES(CL_PHASE_NAME)
#undef CL_PHASE_NAME
};
static uint64_t tsc0, ns0;

static uint64_t mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((constructor)) static void selftime_start(void)
{
  tsc0 = __rdtsc();
  ns0 = mono_ns();
}

__attribute__((destructor)) static void selftime_report(void)
{
  double ns_per_cycle = (double)(mono_ns() - ns0) / (double)(__rdtsc() - tsc0);
  for (int i = 0; i < CL_PH_COUNT; i++) {
    uint64_t n = 0, cycles = 0;
    for (struct cl_phase_block *b = atomic_load(&blocks); b; b = b->next)
      n += b->count[i], cycles += b->cycles[i];
    double ns = (double)cycles * ns_per_cycle;
    fprintf(stderr, "cudalens: selftime %-14s %10llu times %10.3f ms %8.1f ns each\n",
            names[i], (unsigned long long)n, ns / 1e6, n ? ns / (double)n : 0.0);
  }
}
#endif

/* selftime.c - the counters of selftime.h and their report at exit (only in
 * a -DCUDALENS_SELFTIME build).  TSC cycles become nanoseconds by the
 * cycles and CLOCK_MONOTONIC time elapsed between load and exit. */
#include "selftime.h"

#ifdef CUDALENS_SELFTIME
#include <stdio.h>
#include <time.h>

_Atomic uint64_t cl_phase_cycles[CL_PH_COUNT];
_Atomic uint64_t cl_phase_count[CL_PH_COUNT];

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
    uint64_t n = atomic_load(&cl_phase_count[i]);
    double ns = (double)atomic_load(&cl_phase_cycles[i]) * ns_per_cycle;
    fprintf(stderr, "cudalens: selftime %-14s %10llu times %10.3f ms %8.1f ns each\n",
            names[i], (unsigned long long)n, ns / 1e6, n ? ns / (double)n : 0.0);
  }
}
#endif

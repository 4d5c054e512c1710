/* selftime.h - where the shim's own time goes per CUDA call, for profiling
 * on machines without perf (bench/README.md, "Where a call's time goes").
 * Only in a build made with -DCUDALENS_SELFTIME (e.g.
 * `make CPPFLAGS=-DCUDALENS_SELFTIME` in a separate tree); otherwise the
 * macros are empty and cost nothing.  Each phase adds the TSC cycles it
 * took and its count to process-wide counters; at exit the shim prints one
 * `cudalens: selftime` line per phase to stderr, in nanoseconds. */
#ifndef CUDALENS_SELFTIME_H
#define CUDALENS_SELFTIME_H

enum cl_phase {
  CL_PH_CALLBACK, /* a whole CUPTI callback of an API domain (both sites) */
  CL_PH_NESTED,   /* of which: driver calls folded into a runtime call */
  CL_PH_STACK,    /* native stack capture */
  CL_PH_PYSTACK,  /* Python stack capture */
  CL_PH_KPARAMS,  /* kernel parameter scan */
  CL_PH_RECORD,   /* the record: reserve, fill, decode, commit */
  CL_PH_GUARD,    /* the host-access check's bookkeeping */
  CL_PH_INTERN,   /* interning the kernel's name */
  CL_PH_STACK_SLOW, /* of native-stack: walks done by libgcc */
  CL_PH_STACK_FAST_MISS, /* of those: after a fast walk that failed */
  CL_PH_KP_LAYOUT,  /* of kernel-params: finding the kernel's layout */
  CL_PH_KP_WORDS,   /* of kernel-params: 8-byte words looked at (a count) */
  CL_PH_COUNT
};

#ifdef CUDALENS_SELFTIME
#include <stdatomic.h>
#include <stdint.h>
#include <x86intrin.h>
extern _Atomic uint64_t cl_phase_cycles[CL_PH_COUNT]
    __attribute__((visibility("hidden")));
extern _Atomic uint64_t cl_phase_count[CL_PH_COUNT]
    __attribute__((visibility("hidden")));
#define CL_PHASE_BEGIN(v) uint64_t v = __rdtsc()
#define CL_PHASE_ADD(ph, n)                                                    \
  atomic_fetch_add_explicit(&cl_phase_count[ph], (n), memory_order_relaxed)
#define CL_PHASE_END(ph, v)                                                    \
  do {                                                                         \
    atomic_fetch_add_explicit(&cl_phase_cycles[ph], __rdtsc() - (v),           \
                              memory_order_relaxed);                           \
    atomic_fetch_add_explicit(&cl_phase_count[ph], 1, memory_order_relaxed);   \
  } while (0)
#else
#define CL_PHASE_BEGIN(v) do { } while (0)
#define CL_PHASE_END(ph, v) do { } while (0)
#define CL_PHASE_ADD(ph, n) do { } while (0)
#endif

#endif

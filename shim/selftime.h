/* selftime.h - where the shim's own time goes per CUDA call, for profiling
 * on machines without perf (bench/README.md, "Where a call's time goes").
 * Only in a build made with -DCUDALENS_SELFTIME (e.g.
 * `make CPPFLAGS=-DCUDALENS_SELFTIME` in a separate tree); otherwise the
 * macros are empty and cost nothing.  Each phase adds the TSC cycles it
 * took and its count to process-wide counters; at exit the shim prints one
 * `cudalens: selftime` line per phase to stderr, in nanoseconds. */
#ifndef CUDALENS_SELFTIME_H
#define CUDALENS_SELFTIME_H

/* each phase: its name in the enum and in the report at exit */
#define CL_PHASES(X)                                                           \
  X(CALLBACK, "callback")        /* a whole CUPTI callback of an API domain  \
                                    (both sites) */                            \
  X(NESTED, "nested-driver")     /* of which: driver calls folded into a    \
                                    runtime call */                            \
  X(STACK, "native-stack")       /* native stack capture */                 \
  X(PYSTACK, "python-stack")     /* Python stack capture */                 \
  X(PY_BUILT, "pystack-built")   /* of python-stack: chains not in the     \
                                    thread's cache, built (a count) */         \
  X(KPARAMS, "kernel-params")    /* kernel parameter scan */                \
  X(RECORD, "record")            /* the record: reserve, fill, decode,      \
                                    commit */                                  \
  X(GUARD, "host-guard")         /* the host-access check's bookkeeping */  \
  X(GUARD_PARSE, "guard-parse")  /* of host-guard: kernels' mangled names   \
                                    parsed for their const pointers (a     \
                                    count) */                                  \
  X(INTERN, "intern")            /* interning the kernel's name */          \
  X(INTERN_SLOW, "intern-slow")  /* of intern: names not in the thread's    \
                                    cache, looked up under the lock (a     \
                                    count) */                                  \
  X(STACK_SLOW, "stack-libgcc")  /* of native-stack: walks done by libgcc */ \
  X(STACK_FAST_MISS, "stack-fastmiss") /* of those: after a fast walk that \
                                          failed */                            \
  X(STACK_MEMO, "stack-memohit") /* of native-stack: walks that took     \
                                    their outer frames from the last walk \
                                    (a count) */                               \
  X(STACK_STEPS, "stack-steps")  /* of native-stack: frames walked by the  \
                                    rules, not taken (a count) */             \
  X(KP_LAYOUT, "kparams-layout") /* of kernel-params: finding the layout */ \
  X(KP_READ, "kparams-read")     /* of kparams-layout: layouts read from   \
                                    the driver */                              \
  X(KP_STALE, "kparams-stale")   /* of those: read again after a module    \
                                    unload (a count) */                        \
  X(KP_SEARCH, "kparams-search") /* of kernel-params: words looked up in  \
                                    the allocation map (a count) */            \
  X(KP_CODE, "kparams-code")     /* of kernel-params: words looked up      \
                                    among host code (a count) */               \
  X(KP_WORDS, "kparams-words")   /* of kernel-params: 8-byte words looked   \
                                    at (a count) */                            \
  X(KP_NOW, "kparams-now")       /* of kernel-params: scans whose words   \
                                    were resolved on the thread, none left   \
                                    for the writer (a count) */

enum cl_phase {
#define CL_PHASE_ID(id, name) CL_PH_##id,
  CL_PHASES(CL_PHASE_ID)
#undef CL_PHASE_ID
  CL_PH_COUNT
};

#ifdef CUDALENS_SELFTIME
#include <stdatomic.h>
#include <stdint.h>
#include <x86intrin.h>

#include "cudalens/visibility.h"

/* Each thread counts in a block of its own (plain adds: an atomic add to a
 * shared array, a locked instruction on a line other threads write, made
 * the phases that count per frame or per word look slower than they are),
 * summed at exit; blocks are never freed. */
struct cl_phase_block {
  uint64_t cycles[CL_PH_COUNT], count[CL_PH_COUNT];
  struct cl_phase_block *next;
};
extern __thread struct cl_phase_block *cl_phase_mine CL_HIDDEN;
struct cl_phase_block *cl_phase_block_new(void) CL_HIDDEN;
static inline struct cl_phase_block *cl_phase_block(void)
{
  struct cl_phase_block *b = cl_phase_mine;
  return b ? b : cl_phase_block_new();
}
#define CL_PHASE_BEGIN(v) uint64_t v = __rdtsc()
#define CL_PHASE_ADD(ph, n) (cl_phase_block()->count[ph] += (n))
#define CL_PHASE_END(ph, v)                                                    \
  do {                                                                         \
    struct cl_phase_block *b_ = cl_phase_block();                              \
    b_->cycles[ph] += __rdtsc() - (v);                                         \
    b_->count[ph]++;                                                           \
  } while (0)
#else
#define CL_PHASE_BEGIN(v) do { } while (0)
#define CL_PHASE_END(ph, v) do { } while (0)
#define CL_PHASE_ADD(ph, n) do { } while (0)
#endif

#endif

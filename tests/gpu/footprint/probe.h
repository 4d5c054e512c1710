/* probe.h - what the two halves of the footprint probe share: probe.c (the
 * Sanitizer API side) and probe_cupti.c (a CUPTI subscriber like a
 * profiler's, for modes b and c).  Two files because sanitizer.h and cupti.h
 * each declare the same placeholder types and cannot be included together. */
#ifndef CL_FP_PROBE_H
#define CL_FP_PROBE_H
#include <stdatomic.h>
#include <stddef.h>

/* probe_cupti.c: subscribe to CUPTI and enable the runtime and driver API
 * domains; the CUptiResult of cuptiSubscribe, or -1 without a CUPTI library.
 * NOTE receives what was loaded and what enabling returned. */
int fp_cupti_start(char *note, size_t size);
const char *fp_cupti_name(int result);
/* CUPTI API callbacks seen; those entering a kernel launch; those seen while
 * this thread had an instrumented launch open (between LAUNCH_BEGIN and
 * LAUNCH_END of the Sanitizer) */
extern atomic_long fp_n_cupti_cb, fp_n_cupti_launch, fp_n_cupti_during;

/* probe.c: whether this thread is inside an instrumented launch */
int fp_in_instrumented_launch(void);
#endif

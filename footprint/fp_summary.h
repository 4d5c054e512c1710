/* fp_summary.h - what libcudalens-footprint.so keeps of the instrumented
 * launches, per kernel function (its mangled name): its launches, which of
 * them to instrument (the sample), and per pointer word of the arguments
 * and kind of access the bytes accessed relative to it; and the footprint
 * file it becomes at exit (cudalens-db(5), FOOTPRINT FILES), merged into
 * the file when another process of the same run wrote it first.  Nothing
 * here knows the Sanitizer API (collector.c feeds it), so the unit tests run
 * it without a GPU.  Thread-safe. */
#ifndef CL_FP_SUMMARY_H
#define CL_FP_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudalens/visibility.h"
#include "fp_buffer.h"

/* a pointer-sized word of a launch's arguments: its value, the parameter
 * and the byte offset inside it */
struct fp_word {
  uint64_t value;
  uint16_t param, offset;
};

/* an allocation the collector knows (the Sanitizer's resource callbacks):
 * INDEX, the process's INDEX-th device or managed allocation of SIZE bytes
 * (from 1; 0 for other memory) */
struct fp_alloc {
  uint64_t start, size, index;
};
/* the allocation holding ADDR: 1 and *A, or 0 */
typedef int (*fp_alloc_find_fn)(uint64_t addr, struct fp_alloc *a);

/* the sample: the first FIRST launches of each kernel function, then, when
 * SPARSE, those whose number (from 1) is a power of two */
bool fp_sampled(uint64_t launch, unsigned first, bool sparse) CL_HIDDEN;

/* counts a launch of kernel NAME: its number among NAME's launches, from 1
 * (0 when out of memory: not counted, not instrumented) */
uint64_t fp_launch(const char *name) CL_HIDDEN;

/* an instrumented launch of NAME: its argument words W[0..NW) and the
 * accesses it made, ACC[0..N) (sorted here, in place; DROPPED more were
 * not kept, which makes its ranges a lower bound: not exact) */
void fp_instrumented(const char *name, const struct fp_word *w, size_t nw,
                     struct fp_access *acc, size_t n, uint64_t dropped,
                     fp_alloc_find_fn find) CL_HIDDEN;

/* write (or merge into) the footprint file PATH; SAMPLE is the
 * footprint_sample meta value.  0, or -1 with why in WHY.  Uses the SQLite
 * functions of sqlite_api.h (cl_sqlite, loaded by the caller). */
int fp_write(const char *path, const char *sample, char *why,
             size_t n) CL_HIDDEN;

/* forget everything (the unit tests) */
void fp_reset(void) CL_HIDDEN;
/* in the child of a fork: forget the parent's launches without touching
 * the lock another thread of the parent may have held (the memory leaks) */
void fp_forget_after_fork(void) CL_HIDDEN;

#endif

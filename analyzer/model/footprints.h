/* footprints.h - a footprint file (cudalens-db(5), FOOTPRINT FILES) read
 * once for cudalens-report --footprints: per kernel function (its mangled
 * name), the launches of the instrumented run, how many were instrumented,
 * and per pointer (parameter, offset inside it) and kind of access the bytes
 * accessed relative to the pointer.  The model is the one layer that reads
 * SQL; the race analysis (checks/find_races.c) looks kernels up here. */
#ifndef CL_REPORT_FOOTPRINTS_H
#define CL_REPORT_FOOTPRINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudalens/format.h"

struct fp_range {
  int32_t param, offset;   /* the pointer: as kernel_args */
  enum cl_fp_kind kind;
  int64_t lo, hi;          /* [lo, hi) relative to the pointer */
  bool exact;              /* the same range in every instrumented launch */
};

/* accesses no pointer parameter accounts for, in the ALLOC_INDEX-th device
 * or managed allocation of ALLOC_SIZE bytes of the instrumented run */
struct fp_indirect {
  enum cl_fp_kind kind;
  int64_t alloc_size, alloc_index;
  int64_t lo, hi;          /* [lo, hi) relative to that allocation */
};

struct fp_kernel {
  char *name;              /* mangled */
  int64_t launches, instrumented, unattributed;
  struct fp_range *r;      /* sorted by param, offset, kind */
  size_t nr;
  struct fp_indirect *ind; /* those with an allocation (alloc_index > 0) */
  size_t nind;
};

struct footprints {
  char *path;
  struct fp_kernel *k;     /* sorted by name */
  size_t n;
};

/* read PATH into FP; -1 with *ERR (malloc'd, naming the file) when it is not
 * a footprint file this report can read.  Rows whose cells are not of the
 * declared types are left out. */
int footprints_read(struct footprints *fp, const char *path, char **err);
/* the kernel function MANGLED, when the file has it with at least one
 * instrumented launch; else NULL */
const struct fp_kernel *footprints_kernel(const struct footprints *fp,
                                          const char *mangled);
void footprints_free(struct footprints *fp);

#endif

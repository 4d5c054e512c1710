/* activity.h - the GPU-side records of a recording (activity table), indexed
 * by correlation id, and their combination per call: a call's activity is
 * found by calls.correlation and, when different, calls.driver_correlation. */
#ifndef CL_REPORT_ACTIVITY_H
#define CL_REPORT_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#include "model/db.h"

enum act_kind { ACT_OTHER, ACT_KERNEL, ACT_MEMCPY, ACT_MEMSET, ACT_P2P };

struct act {
  int64_t correlation;
  int64_t start_ns, end_ns;
  int64_t bytes;    /* -1 when NULL */
  int64_t name;     /* strings.id, -1 when NULL */
  int8_t kind;      /* enum act_kind */
  int8_t copy_dir;  /* enum cl_dir, -1 when NULL */
  int8_t src_kind;  /* enum cl_memkind, -1 when NULL */
  int8_t dst_kind;
};

struct activity {
  struct act *v;
  size_t n;
  int64_t *devices;  /* the DISTINCT activity.device (not NULL), as integers */
  size_t ndevices;
};

/* what the GPU did for one call */
struct call_act {
  size_t n;          /* records found */
  int64_t gpu_ns;    /* sum of end-start */
  int64_t start_ns;  /* earliest start, latest end */
  int64_t end_ns;
  int64_t bytes;     /* sum, -1 if none recorded */
  int64_t name;      /* first record's name, -1 if none */
  int copy_dir;      /* first non-NULL, -1 if none */
  int src_kind, dst_kind;
};

void activity_load(struct activity *a, struct cl_db *d);
void activity_free(struct activity *a);
/* records with this correlation id: *n of them from the result */
const struct act *activity_find(const struct activity *a, int64_t corr,
                                size_t *n);
/* combine the records of correlation CORR and DRIVER_CORR (either may be
 * 0 or -1 for none) into *OUT */
void activity_for_call(const struct activity *a, int64_t corr,
                       int64_t driver_corr, struct call_act *out);
/* the same, searching from *HINT (0 at first; kept between calls: the
 * search is cheap when the correlations asked for come in about
 * increasing order, as in a replay) */
void activity_for_call_near(const struct activity *a, int64_t corr,
                            int64_t driver_corr, struct call_act *out,
                            size_t *hint);
const struct act *activity_find_near(const struct activity *a, int64_t corr,
                                     size_t *n, size_t *hint);

/* text of the schema -> enum; -1 for NULL, the "unknown" value for
 * unrecognized text */
int parse_memkind(const char *s);
int parse_dir(const char *s);

#endif

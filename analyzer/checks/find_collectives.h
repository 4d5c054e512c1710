/* find_collectives.h - collective-mismatch (checks.def): the NCCL
 * collectives of each communicator compared rank by rank, across the
 * recordings of one report.  Each recording's collectives are gathered
 * while it is open (collectives_gather, with their call sites); the
 * comparison runs once all are (collectives_compare). */
#ifndef CL_REPORT_FIND_COLLECTIVES_H
#define CL_REPORT_FIND_COLLECTIVES_H

#include <stddef.h>

#include "checks/findings.h"
#include "report.h"

struct recording;

/* one successful collective of a rank (a reduced result carries them:
 * reduced.h) */
struct coll {
  int64_t seq, comm_id, count, datatype, root, redop;
  int32_t rank, nranks;
  char *kind;
  size_t site;  /* index into the log's sites */
};

/* one rank of one communicator in a recording: how many collectives it
 * made and a hash of what collective_compare compares of them, in order */
struct coll_sum {
  int64_t comm_id;
  int32_t rank;
  size_t n;
  uint64_t hash;
};

/* a recording's collectives in call order, and their call sites; once
 * folded (collectives_fold), only their sums */
struct coll_log {
  struct coll *v;
  size_t n, cap;
  struct location *sites;
  size_t nsites, capsites;
  struct coll_sum *sums;
  size_t nsums;
  int folded;
};

/* the successful collectives of CTX's recording (none before schema 4),
 * in call order; free with collectives_free */
struct coll_log *collectives_gather(struct report_ctx *ctx);
void collectives_free(struct coll_log *l);

/* Keep only L's sums: its collectives and sites are freed (a report of a
 * thousand ranks holds their sums, not their collectives; issue 25) */
void collectives_fold(struct coll_log *l);

/* Compare the communicators' sequences of R[0..N) (report order; their
 * `colls`) and append a collective-mismatch finding to OUT for the first
 * position where a communicator's ranks differ; with several recordings
 * each finding gets its origins and label, as merged findings have.  OUT
 * is sorted and fingerprinted again when something was added.  A
 * communicator whose ranks' sums agree (the same number of collectives and
 * the same hash) is not compared further; for one whose sums differ, the
 * folded logs of the recordings that have it are read again with
 * RELOAD(r, ARG) (0 when read; r->colls replaced by the full log), compared
 * call by call, and folded again. */
void collectives_compare(struct recording *r, size_t n, struct findings *out,
                         int (*reload)(struct recording *, void *),
                         void *arg);

#endif

/* find_collectives.h - collective-mismatch (checks.def): the NCCL
 * collectives of each communicator compared rank by rank, across the
 * recordings of one report.  Each recording's collectives are gathered
 * while it is open (collectives_gather, with their call sites); the
 * comparison runs once all are (collectives_compare). */
#ifndef CL_REPORT_FIND_COLLECTIVES_H
#define CL_REPORT_FIND_COLLECTIVES_H

#include <stddef.h>

#include "checks/findings.h"
#include "checks/merge.h"
#include "checks/report.h"

/* one successful collective of a rank (a reduced result carries them:
 * reduced.h) */
struct coll {
  int64_t seq, comm_id, count, datatype, root, redop;
  int32_t rank, nranks;
  char *kind;
  size_t site;  /* index into the log's sites */
  size_t pos;   /* its place among the (comm_id, rank) collectives */
};

/* the collectives of a rank are summed in blocks of this many */
#define COLL_BLOCK 256

/* one rank of one communicator in a recording: how many collectives it
 * made and, for each block of COLL_BLOCK of them, a hash of what
 * collective_compare compares of them, in order */
struct coll_sum {
  int64_t comm_id;
  int32_t rank;
  size_t n;
  uint64_t *blocks;     /* (n + COLL_BLOCK - 1) / COLL_BLOCK of them */
  size_t cap_blocks;
};

/* a recording's collectives in call order, and their call sites; once
 * folded (collectives_fold), only their sums (and, while a comparison
 * needs it, a window of its collectives read again: collectives_compare) */
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
/* L's collectives and sites freed, its sums kept (after a window) */
void collectives_drop_calls(struct coll_log *l);

/* Compare the communicators' sequences of the logs LOGS[0..O->n) of the
 * recordings of a report (in report order; O, merge.h: their processes)
 * and append a collective-mismatch finding to OUT for the first
 * position where a communicator's ranks differ; with several recordings
 * each finding gets its origins and label, as merged findings have.  OUT
 * is sorted and fingerprinted again when something was added.  The
 * ranks of a communicator are compared block by block of their sums:
 * blocks whose hashes and lengths agree are equal; only the collectives of
 * a block where they disagree are compared call by call, those of folded
 * logs read again with RELOAD(K, ARG, COMM_ID, LO, HI) (0 when read: the
 * collectives of COMM_ID at places [LO, HI) in LOGS[K], its sums kept)
 * and dropped afterwards.  So memory holds the sums and one block of each
 * rank, not every collective. */
void collectives_compare(struct coll_log *const *logs,
                         const struct merge_origins *o, struct findings *out,
                         int (*reload)(size_t, void *, int64_t, size_t,
                                       size_t),
                         void *arg);

#endif

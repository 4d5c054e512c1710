/* merge.h - one list of findings for several recordings of a run (the
 * processes of torchrun, MPI or a fork): findings with the same
 * fingerprint and severity in several recordings become one, with their
 * counts and costs summed, labelled with the processes they were found
 * in. */
#ifndef CL_REPORT_MERGE_H
#define CL_REPORT_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "checks/findings.h"
#include "model/summary.h" /* struct process */

/* the recordings of one report as merging sees them, in report order
 * (recordings_order): the process each was made in, and whether every one
 * has a rank (then findings name ranks, else pids) */
struct merge_origins {
  const struct process *const *procs;
  size_t n;
  bool by_rank;
};

/* Merge the findings FS[0..O->n) of the recordings of O into OUT,
 * emptying each FS[i].  The k-th finding of a fingerprint and severity in
 * one recording joins the k-th of the others; the merged one keeps the
 * message, places, fix and extra numbers of its first process and sums
 * the counts and costs.  Every finding gets its origins and origin_label.
 * OUT comes out sorted (findings_sort). */
void merge_findings(struct findings *out, struct findings *const *fs,
                    const struct merge_origins *o);
/* the label of a finding of F->origins among O's recordings: "ranks 0-3,
 * 5" when O->by_rank, else "processes 1234, 1240" (malloc'd) */
char *merge_origin_label(const struct finding *f,
                         const struct merge_origins *o);

#endif

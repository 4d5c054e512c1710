/* merge.h - one list of findings for several recordings of a run (the
 * processes of torchrun, MPI or a fork): findings with the same
 * fingerprint and severity in several recordings become one, with their
 * counts and costs summed, labelled with the processes they were found
 * in. */
#ifndef CL_REPORT_MERGE_H
#define CL_REPORT_MERGE_H

#include <stddef.h>

#include "checks/findings.h"
#include "recordings.h"

/* Merge the findings of R[0..N) (in report order, recordings_order) into
 * OUT, emptying each R[i].fs.  The k-th finding of a fingerprint and
 * severity in one recording joins the k-th of the others; the merged one
 * keeps the message, places, fix and extra numbers of its first process
 * and sums the counts and costs.  Every finding gets its origins and
 * origin_label (ranks when every recording has a rank, else pids).  OUT
 * comes out sorted (findings_sort). */
void merge_findings(struct findings *out, struct recording *r, size_t n);
/* the label of a finding of F->origins among R[0..N): "ranks 0-3, 5" when
 * every recording has a rank, else "processes 1234, 1240" (malloc'd) */
char *merge_origin_label(const struct finding *f, const struct recording *r,
                         size_t n);

#endif

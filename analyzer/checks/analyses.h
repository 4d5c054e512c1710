/* analyses.h - the registry of analyses.  Each analysis reads the
 * recording through a report_ctx and appends findings; to add one, write
 * analyzer/checks/<name>.c with a function of type analysis_fn, declare it
 * here and list it in analyses.c (and its kinds in checks.def). */
#ifndef CL_REPORT_ANALYSES_H
#define CL_REPORT_ANALYSES_H

#include "findings.h"
#include "report.h"

typedef void (*analysis_fn)(struct report_ctx *ctx, struct findings *out);

struct analysis {
  const char *name;
  analysis_fn run;
};

/* the analyses, ending with {NULL, NULL} */
extern const struct analysis cl_analyses[];

/* run every analysis, then sort the findings */
void run_analyses(struct report_ctx *ctx, struct findings *out);

/* declarations of the analyses go here */
void analysis_host(struct report_ctx *ctx, struct findings *out);
/* transfer and device findings (find_common.h has their shared helpers) */
void analysis_transfers(struct report_ctx *ctx, struct findings *out);
void analysis_pinning(struct report_ctx *ctx, struct findings *out);
void analysis_syncs(struct report_ctx *ctx, struct findings *out);
void analysis_devices(struct report_ctx *ctx, struct findings *out);
void analysis_streams(struct report_ctx *ctx, struct findings *out);

void analysis_races(struct report_ctx *ctx, struct findings *out);

#endif

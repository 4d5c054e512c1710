/* analyses.h - the registry of analyses.  Each analysis reads the
 * recording through a report_ctx and appends findings; to add one, write
 * analyzer/checks/<name>.c with a function of type analysis_fn, declare it
 * here and list it in analyses.c (and its kinds in checks.def). */
#ifndef CL_REPORT_ANALYSES_H
#define CL_REPORT_ANALYSES_H

#include "checks/findings.h"
#include "checks/report.h"

typedef void (*analysis_fn)(struct report_ctx *ctx, struct findings *out);

struct analysis {
  const char *name;
  analysis_fn run;
};

/* the analyses, ending with {NULL, NULL} */
extern const struct analysis cl_analyses[];

/* run every analysis, then sort the findings */
void run_analyses(struct report_ctx *ctx, struct findings *out);
/* the same in two steps: start the analyses that do not read ctx->sum
 * (with the calls log read: recording_read), then, with ctx->sum built,
 * run the others; the findings are the same */
struct analyses_run;
struct analyses_run *analyses_start(struct report_ctx *ctx);
void analyses_finish(struct analyses_run *run, struct findings *out);

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

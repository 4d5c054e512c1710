/* output.h - the renderings of a report: human-readable text, JSON
 * ("cudalens-report/1"), SARIF 2.1.0 and GitHub Actions workflow commands
 * (the last two: findings only), and the timeline as a Chrome trace-event
 * file (Perfetto) or one self-contained HTML page.  All take the same
 * sorted findings. */
#ifndef CL_REPORT_OUTPUT_H
#define CL_REPORT_OUTPUT_H

#include <stdio.h>

#include "checks/findings.h"
#include "checks/suppress.h"
#include "model/summary.h"
#include "model/timeline.h"
#include "recordings.h"

/* R[0..N): the recordings in report order; with more than one, FS are
 * merged (merge.c) and the report takes its merged form.  FS: the findings
 * shown; SUP: those suppressions took out (text and JSON count them, SARIF
 * lists them as suppressed results, GitHub's format and the timelines
 * leave them out) */
void output_text(FILE *f, const struct recording *r, size_t n,
                 const struct findings *fs, const struct suppressed *sup);
void output_json(FILE *f, const struct recording *r, size_t n,
                 const struct findings *fs, const struct suppressed *sup);
/* SOURCE_ROOT: the absolute --source-root that relative file paths are
 * relative to (SARIF's uriBaseId SRCROOT), or NULL */
void output_sarif(FILE *f, const struct findings *fs,
                  const struct suppressed *sup, const char *source_root);
void output_github(FILE *f, const struct findings *fs);
/* the timeline and the findings drawn on it (finding ops) */
void output_perfetto(FILE *f, const struct summary *s, const struct findings *fs,
                     const struct timeline *tl);
void output_html(FILE *f, const struct summary *s, const struct findings *fs,
                 const struct timeline *tl);

/* one process's summary as output_text prints it; as output_json prints
 * it, the member "summary" of an object at depth 1 (output_json splices
 * it in at its depth: json_splice).  A reduced result keeps them
 * (reduced.h); a recording with text_summary and json_summary set is
 * printed with them. */
void output_text_summary(FILE *f, const struct summary *s);
void output_json_summary(FILE *f, const struct summary *s);

struct json;
/* a finding's count, cost_ns, fix and extra numbers (flags as booleans), as
 * members of the JSON object being written (JSON findings, SARIF
 * properties) */
void json_finding_numbers(struct json *j, const struct finding *x);

#endif

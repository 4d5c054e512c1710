/* output.h - the two renderings of a report: human-readable text and JSON
 * ("cudalens-report/1").  Both take the same summary and sorted findings. */
#ifndef CL_REPORT_OUTPUT_H
#define CL_REPORT_OUTPUT_H

#include <stdio.h>

#include "findings.h"
#include "summary.h"

void output_text(FILE *f, const struct summary *s, const struct findings *fs);
void output_json(FILE *f, const struct summary *s, const struct findings *fs);

/* "file:line", "file", "module+0xoffset" or "<unknown>" (text and JSON
 * share it); buf of at least 64 bytes, may return a pointer into loc */
const char *location_text(char *buf, size_t len, const struct location *loc);

#endif

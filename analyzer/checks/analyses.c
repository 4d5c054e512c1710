/* analyses.c - the list of analyses run by cudalens-report, in order.
 * None yet: later analyses add a line {"name", function}. */
#include "analyses.h"

const struct analysis cl_analyses[] = {
    {"host", analysis_host},
    {"transfers", analysis_transfers},
    {"pinning", analysis_pinning},
    {"syncs", analysis_syncs},
    {"devices", analysis_devices},
    {"streams", analysis_streams},
    {"races", analysis_races},
    {NULL, NULL},
};

void run_analyses(struct report_ctx *ctx, struct findings *out)
{
  for (const struct analysis *a = cl_analyses; a->run; a++)
    a->run(ctx, out);
  findings_sort(out);
  findings_fingerprint(out);
}

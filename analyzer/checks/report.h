/* report.h - what an analysis gets to work with: the open recording, its
 * GPU activity index, the summary (including the stream instances), the
 * call-site resolver, and the kernels' footprints when given. */
#ifndef CL_REPORT_REPORT_H
#define CL_REPORT_REPORT_H

#include "checks/findings.h"
#include "model/activity.h"
#include "model/db.h"
#include "model/footprints.h"
#include "model/summary.h"
#include "sites/callsite.h"

struct report_ctx {
  struct cl_db *db;
  const struct activity *act;
  struct summary *sum;
  struct callsites *cs;
  const struct footprints *fp; /* --footprints, else NULL */
};

#endif

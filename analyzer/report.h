/* report.h - what an analysis gets to work with: the open recording, its
 * GPU activity index, the summary (including the stream instances), and
 * the call-site resolver. */
#ifndef CL_REPORT_REPORT_H
#define CL_REPORT_REPORT_H

#include "activity.h"
#include "callsite.h"
#include "db.h"
#include "findings.h"
#include "summary.h"

struct report_ctx {
  struct cl_db *db;
  const struct activity *act;
  struct summary *sum;
  struct callsites *cs;
};

#endif

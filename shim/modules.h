/* modules.h - the loaded objects as the recording's modules table lists them
 * (modules.c). */
#ifndef CUDALENS_SHIM_MODULES_H
#define CUDALENS_SHIM_MODULES_H

#include "shim.h"

struct cl_module {
  char *path;
  uint64_t start, end, bias;
  char build_id[41];
};
/* Snapshot of loaded objects; returns count, *mods malloc'd (free with
 * cl_modules_free). */
int cl_modules_scan(struct cl_module **mods) CL_HIDDEN;
void cl_modules_free(struct cl_module *mods, int n) CL_HIDDEN;

#endif

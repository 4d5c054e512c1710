/* manifest.h - the launcher's manifest (manifest.c), written when
 * CUDALENS_MANIFEST is set: the recordings this process made, and why one
 * is missing or partial. */
#ifndef CUDALENS_SHIM_MANIFEST_H
#define CUDALENS_SHIM_MANIFEST_H

#include "shim.h"

/* a recording started at PATH */
void cl_manifest_recording(const char *path) CL_HIDDEN;
/* this process is not recorded, or not in full, because of WHY (one line) */
void cl_manifest_problem(const char *why) CL_HIDDEN;

#endif

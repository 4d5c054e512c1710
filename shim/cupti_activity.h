/* cupti_activity.h - CUPTI's activity buffers as records
 * (cupti_activity.c). */
#ifndef CUDALENS_SHIM_CUPTI_ACTIVITY_H
#define CUDALENS_SHIM_CUPTI_ACTIVITY_H

#include "shim.h"

int cl_activity_start(void) CL_HIDDEN;
void cl_activity_flush(int forced) CL_HIDDEN;

#endif

/* capture.h - CUPTI's callbacks as records (capture.c). */
#ifndef CUDALENS_SHIM_CAPTURE_H
#define CUDALENS_SHIM_CAPTURE_H

#include "shim.h"

int cl_capture_start(void) CL_HIDDEN;       /* subscribe; 0 on success */
void cl_capture_stop(void) CL_HIDDEN;
int cl_capture_recording(void) CL_HIDDEN;   /* subscribed now? */

#endif

/* capture.h - CUPTI's callbacks as records (capture.c). */
#ifndef CUDALENS_SHIM_CAPTURE_H
#define CUDALENS_SHIM_CAPTURE_H

#include "shim.h"

int cl_capture_start(void) CL_HIDDEN;       /* subscribe; 0 on success */
void cl_capture_stop(void) CL_HIDDEN;
int cl_capture_recording(void) CL_HIDDEN;   /* subscribed now? */
/* A benchmark's phase (benchphase.c): OFF, CUPTI detached
 * (cuptiFinalize); FLOOR, attached and the handler returning at once
 * (bench/cupti_floor.c); ON, recording.  0, or -1 when not recording. */
enum { CL_BENCH_OFF, CL_BENCH_FLOOR, CL_BENCH_ON };
int cl_capture_bench_phase(int phase) CL_HIDDEN;

#endif

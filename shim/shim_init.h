/* shim_init.h - the shim's life cycle (shim_init.c), as dlhook.c asks
 * about it. */
#ifndef CUDALENS_SHIM_SHIM_INIT_H
#define CUDALENS_SHIM_SHIM_INIT_H

#include "shim.h"

/* The shim waits for CUDA to be loaded (not started, not disabled). */
int cl_shim_waiting(void) CL_HIDDEN;
/* The shim's constructor has started (it looks for CUDA itself). */
int cl_shim_constructed(void) CL_HIDDEN;
/* Starts recording if CUDA was loaded since the last look; 1 if this call
 * started (or failed to start) it.  Never blocks. */
int cl_cuda_maybe_loaded(void) CL_HIDDEN;

#endif

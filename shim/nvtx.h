/* nvtx.h - the names the program gives streams and threads through NVTX
 * (nvtx.c). */
#ifndef CUDALENS_SHIM_NVTX_H
#define CUDALENS_SHIM_NVTX_H

#include "shim.h"

/* write the names given before the recording started */
void cl_nvtx_flush_pending(void) CL_HIDDEN;
void cl_nvtx_atfork_prepare(void) CL_HIDDEN;
void cl_nvtx_atfork_parent(void) CL_HIDDEN;
void cl_nvtx_atfork_child(void) CL_HIDDEN;

#endif

/* hostfn.h - host functions and stream callbacks (hostfn.c). */
#ifndef CUDALENS_SHIM_HOSTFN_H
#define CUDALENS_SHIM_HOSTFN_H

#include "shim.h"

struct cl_api;
/* At the ENTER callback of the driver call that enqueues a host function
 * (api a HOST_FUNC row of the driver; params its CUPTI parameters): put
 * the trampoline in the user's function's place; returns its slot, NULL
 * when not done.  CORRELATION: the recorded call's (the runtime call's
 * when inside one).  STREAM and TID name the stream as the host check
 * does; CAPTURED: a stream is being captured (the function becomes a
 * graph node that may run many times). */
void *cl_hostfn_wrap(const struct cl_api *api, const void *params,
                     uint32_t correlation, uint64_t stream, uint64_t tid,
                     int captured) CL_HIDDEN;
/* the driver call failed: its slot is given back */
void cl_hostfn_failed(void *slot) CL_HIDDEN;
/* host functions enqueued without a trampoline (no slot) since last asked */
uint64_t cl_hostfn_take_unobserved(void) CL_HIDDEN;

#endif

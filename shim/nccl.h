/* nccl.h - NCCL calls as records (nccl.c). */
#ifndef CUDALENS_SHIM_NCCL_H
#define CUDALENS_SHIM_NCCL_H

#include "shim.h"

void cl_nccl_comms_atfork_prepare(void) CL_HIDDEN;
void cl_nccl_comms_atfork_parent(void) CL_HIDDEN;
void cl_nccl_comms_atfork_child(void) CL_HIDDEN;
/* the recording is on: NCCL calls may be recorded */
void cl_nccl_enable(void) CL_HIDDEN;
int cl_nccl_enabled(void) CL_HIDDEN;
/* NCCL is at work on this thread (inside a call of nccl.def, or a thread it
 * created there): a kernel launched now is one of its own */
int cl_nccl_inside(void) CL_HIDDEN;
/* (threads.c) this thread was created inside NCCL: it is NCCL's */
void cl_nccl_adopt(void) CL_HIDDEN;
/* The wrappers of nccl.def (nccl.c): for each name its wrapper and the
 * slot of its real function; cl_nccl_count of them. */
struct cl_nccl_fn {
  const char *name;
  void *wrapper;
  void *_Atomic *real;
};
extern const struct cl_nccl_fn cl_nccl_fns[] CL_HIDDEN;
extern const unsigned cl_nccl_count CL_HIDDEN;
/* the kind of NCCL row I (nccl.def): "all-reduce"..., NULL for a
 * communicator's creation or destruction */
const char *cl_nccl_kind(unsigned i) CL_HIDDEN;

#endif

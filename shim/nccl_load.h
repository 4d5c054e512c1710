/* nccl_load.h - is NCCL loaded, and where are its functions (nccl_load.c). */
#ifndef CUDALENS_SHIM_NCCL_LOAD_H
#define CUDALENS_SHIM_NCCL_LOAD_H

#include "shim.h"

/* Loaded objects changed: when NCCL is among them and the shim records,
 * route the program's calls of the functions of nccl.def through the
 * shim (by their GOT entries).  Cheap when nothing was loaded.  Never
 * waits: while another thread looks, it leaves the look to that thread. */
void cl_nccl_maybe_loaded(void) CL_HIDDEN;
void cl_nccl_atfork_prepare(void) CL_HIDDEN;
void cl_nccl_atfork_parent(void) CL_HIDDEN;
void cl_nccl_atfork_child(void) CL_HIDDEN;

#endif

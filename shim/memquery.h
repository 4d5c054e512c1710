/* memquery.h - what the driver says about memory (memquery.c). */
#ifndef CUDALENS_SHIM_MEMQUERY_H
#define CUDALENS_SHIM_MEMQUERY_H

#include "shim.h"

/* Completes the arguments of a successful allocation (ALLOC): the device of
 * a mapping's physical memory, the size and device of memory opened through
 * IPC or imported from a pool, the pool of a stream-ordered allocation. */
void cl_memquery_resolve(struct cl_args *a) CL_HIDDEN;

#endif

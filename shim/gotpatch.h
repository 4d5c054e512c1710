/* gotpatch.h - routing the program's calls of NCCL through the shim
 * (gotpatch.c). */
#ifndef CUDALENS_SHIM_GOTPATCH_H
#define CUDALENS_SHIM_GOTPATCH_H

#include "shim.h"

/* Patch the GOT entries of the loaded objects (not yet looked at) that
 * import a function of cl_nccl_fns bound to (or lazily bound to) the
 * NCCL library NCCL_BASE..NCCL_END; returns the number of entries patched. */
int cl_got_patch(uintptr_t nccl_start, uintptr_t nccl_end) CL_HIDDEN;

#endif

/* cupti_bind.h - finding and binding CUPTI (cupti_bind.c). */
#ifndef CUDALENS_SHIM_CUPTI_BIND_H
#define CUDALENS_SHIM_CUPTI_BIND_H

#include "cudaload.h"

int cl_cupti_bind(const struct cl_cuda_found *f, char *why, size_t whysz)
    CL_HIDDEN;

#endif

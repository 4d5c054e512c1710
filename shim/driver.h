/* driver.h - the CUDA driver's functions, looked up when needed (driver.c). */
#ifndef CUDALENS_SHIM_DRIVER_H
#define CUDALENS_SHIM_DRIVER_H

#include "shim.h"

void *cl_driver_sym(const char *name) CL_HIDDEN;

#endif

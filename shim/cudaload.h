/* cudaload.h - is CUDA loaded, and which runtime (cudaload.c); the walk of
 * the loaded objects that it and nccl_load.c share. */
#ifndef CUDALENS_SHIM_CUDALOAD_H
#define CUDALENS_SHIM_CUDALOAD_H

#include "shim.h"

struct dl_phdr_info;
/* FN(info, ARG) for each loaded object (dl_iterate_phdr's order, until FN
 * returns nonzero), unless no object was loaded since the last walk that
 * passed the same SEEN (each caller keeps its own, zero at first); 0 when
 * nothing was loaded (FN was not called), else 1.  Cheap enough to run
 * after every dlopen(). */
int cl_loaded_walk(_Atomic unsigned long long *seen,
                   int (*fn)(struct dl_phdr_info *, void *), void *arg)
    CL_HIDDEN;
/* Is this thread inside cl_loaded_walk?  (A sanitizer whose runtime starts
 * at its first intercepted call starts inside the walk's dl_iterate_phdr,
 * and binds its interceptors with dlsym there: dlhook.c.) */
int cl_loaded_walking(void) CL_HIDDEN;
struct cl_cuda_found {
  char runtime[4096];    /* path of the loaded libcudart.so.N, "" when none */
  int runtime_major;     /* N, 0 when unknown */
  int driver;            /* libcuda.so.1 is loaded */
};
/* 1 when objects were loaded since the last call and CUDA (the driver or
 * a runtime) is among the loaded ones. */
int cl_cuda_appeared(void) CL_HIDDEN;
/* 1 when CUDA is among the loaded objects; f says which. */
int cl_cuda_scan(struct cl_cuda_found *f) CL_HIDDEN;
/* 1 for the driver (libcuda.so[.1]), 2 for a runtime (libcudart.so[.N]) */
int cl_cuda_lib_kind(const char *path) CL_HIDDEN;
/* N of a libcudart.so.N path (following a libcudart.so link), or 0 */
int cl_cuda_runtime_major(const char *path) CL_HIDDEN;

#endif

/* threadmem.h - per-thread memory allocated on a thread's first use
 * (threadmem.c). */
#ifndef CUDALENS_THREADMEM_H
#define CUDALENS_THREADMEM_H
#include <stddef.h>

#include "cudalens/visibility.h"

/* *MINE (the caller's __thread pointer), or SIZE zeroed bytes allocated for
 * this thread and stored there, freed (and *MINE cleared) when the thread
 * exits; NULL when there is no memory (the caller does without). */
void *cl_thread_calloc_new(void **mine, size_t size) CL_HIDDEN;
/* (inline: asked on every CUDA call, and allocated once) */
static inline void *cl_thread_calloc(void **mine, size_t size)
{
  return *mine ? *mine : cl_thread_calloc_new(mine, size);
}

#endif

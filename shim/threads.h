/* threads.h - host threads (threads.c): the program's pthread_create and
 * pthread_join, recorded as the edges between its threads. */
#ifndef CUDALENS_SHIM_THREADS_H
#define CUDALENS_SHIM_THREADS_H

#include "shim.h"

/* Write this thread's pending create edge, if any; called before the
 * thread's first record (inline: asked before every record). */
struct spawn;
extern __thread struct spawn *cl_threads_pending CL_HIDDEN;
void cl_threads_write_pending(void) CL_HIDDEN;
static inline void cl_threads_before_record(void)
{
  if (cl_threads_pending)
    cl_threads_write_pending();
}

#endif

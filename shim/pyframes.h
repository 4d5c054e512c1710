/* pyframes.h - the Python call stack of a call (pyframes.c). */
#ifndef CUDALENS_SHIM_PYFRAMES_H
#define CUDALENS_SHIM_PYFRAMES_H

#include "shim.h"

/* The interned Python stack of the calling thread ("file:line:function"
 * lines, innermost first, at most 32), or 0 when it runs no Python code.
 * Safe without the GIL; never calls into Python code. */
uint32_t cl_pystack_capture(void) CL_HIDDEN;

/* How many of the calling thread's captures were not in its cache (their
 * lines made into a string and interned): for tests and benchmarks. */
unsigned long cl_pystack_built(void) CL_HIDDEN;

#endif

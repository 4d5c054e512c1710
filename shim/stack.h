/* stack.h - the native call stack of a call (stack.c). */
#ifndef CUDALENS_SHIM_STACK_H
#define CUDALENS_SHIM_STACK_H

#include "shim.h"

/* The return addresses of the caller's stack into FRAMES, innermost first:
 * their number.  LIM is the most to keep (at most CL_STACK_DEPTH), or'd
 * with CL_STACK_TO_PYTHON for a call whose Python stack is recorded: the
 * walk then stops at the first frame inside the Python interpreter that
 * cl_stack_python_at() named. */
int cl_stack_capture(uint64_t *frames, int lim) CL_HIDDEN;
#define CL_STACK_DEPTH 0xff
#define CL_STACK_TO_PYTHON 0x100
/* The interpreter is the object that holds CODE (pyframes.c, once) */
void cl_stack_python_at(const void *code) CL_HIDDEN;
/* walks of this thread that libgcc did (the slow ones), for tests */
unsigned long cl_stack_slow_walks(void) CL_HIDDEN;
/* frames this thread's fast walks followed by learned rules, not taken
 * from a walk remembered (walks without the thread's memos, from a signal
 * handler or for more than CL_MAX_FRAMES, not counted), for tests */
unsigned long cl_stack_rule_steps(void) CL_HIDDEN;
void cl_stack_init(void) CL_HIDDEN;

#endif

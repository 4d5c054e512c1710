/* stack.h - the native call stack of a call (stack.c). */
#ifndef CUDALENS_SHIM_STACK_H
#define CUDALENS_SHIM_STACK_H

#include "shim.h"

int cl_stack_capture(uint64_t *frames, int max) CL_HIDDEN;
/* walks of this thread that libgcc did (the slow ones), for tests */
unsigned long cl_stack_slow_walks(void) CL_HIDDEN;
/* frames this thread's fast walks followed by learned rules, not taken
 * from a walk remembered (walks without the thread's memos, from a signal
 * handler or for more than CL_MAX_FRAMES, not counted), for tests */
unsigned long cl_stack_rule_steps(void) CL_HIDDEN;
void cl_stack_init(void) CL_HIDDEN;

#endif

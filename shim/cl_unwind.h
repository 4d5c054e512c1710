/* cl_unwind.h - libgcc's unwinder, looked up when the shim starts
 * (unwind.c) rather than linked: a process that never uses CUDA does not
 * load libgcc_s for the shim (issue 24, defect 10). */
#ifndef CL_UNWIND_H
#define CL_UNWIND_H
#include <unwind.h>

#include "cudalens/visibility.h"

struct cl_unwind {
  _Unwind_Reason_Code (*backtrace)(_Unwind_Trace_Fn, void *);
  _Unwind_Ptr (*get_ip)(struct _Unwind_Context *);
  _Unwind_Word (*get_cfa)(struct _Unwind_Context *);
  _Unwind_Word (*get_gr)(struct _Unwind_Context *, int);
};
/* all four set before backtrace is (release store) */
extern struct cl_unwind cl_unwind CL_HIDDEN;
/* _Unwind_Backtrace, binding the unwinder on first use (not in a signal
 * handler: cl_stack_init binds it when the shim starts); NULL without it */
_Unwind_Reason_Code (*cl_unwind_backtrace(void))(_Unwind_Trace_Fn, void *)
    CL_HIDDEN;
#endif

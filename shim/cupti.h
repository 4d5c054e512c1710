/* cupti.h (shim) - the CUPTI functions the shim calls, bound at run time by
 * cupti_bind.c so that a program without CUPTI still runs (unrecorded). */
#ifndef CUDALENS_SHIM_CUPTI_H
#define CUDALENS_SHIM_CUPTI_H
#include <cupti.h>

#include "shim.h"

#define CL_CUPTI_FUNCS(X)                                                      \
  X(cuptiSubscribe, (CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *))    \
  X(cuptiUnsubscribe, (CUpti_SubscriberHandle))                                \
  X(cuptiEnableCallback, (uint32_t, CUpti_SubscriberHandle,                   \
                          CUpti_CallbackDomain, CUpti_CallbackId))             \
  X(cuptiEnableDomain, (uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain)) \
  X(cuptiFinalize, (void))                                                     \
  X(cuptiGetResultString, (CUptiResult, const char **))                        \
  X(cuptiGetTimestamp, (uint64_t *))                                           \
  X(cuptiGetVersion, (uint32_t *))                                             \
  X(cuptiGetDeviceId, (CUcontext, uint32_t *))                                 \
  X(cuptiGetContextId, (CUcontext, uint32_t *))                                \
  X(cuptiActivityEnable, (CUpti_ActivityKind))                                 \
  X(cuptiActivityDisable, (CUpti_ActivityKind))                                \
  X(cuptiActivityRegisterCallbacks, (CUpti_BuffersCallbackRequestFunc,        \
                                     CUpti_BuffersCallbackCompleteFunc))       \
  X(cuptiActivityGetNextRecord, (uint8_t *, size_t, CUpti_Activity **))        \
  X(cuptiActivityFlushAll, (uint32_t))                                         \
  X(cuptiActivityGetNumDroppedRecords, (CUcontext, uint32_t, size_t *))

struct cl_cupti_api {
#define CL_CUPTI_PTR(name, args) CUptiResult (*name) args;
  CL_CUPTI_FUNCS(CL_CUPTI_PTR)
#undef CL_CUPTI_PTR
};
extern struct cl_cupti_api cl_cupti CL_HIDDEN;
const char *cl_cupti_error(CUptiResult r) CL_HIDDEN;
/* The places cupti_bind.c looks for libcupti.so.MAJOR, in order (paths, or
 * the bare name for the loader's path); returns how many it wrote. */
int cl_cupti_candidates(const char *runtime, int major, const char *cuda_home,
                        const char *cuda_path, char out[][4096], int max)
    CL_HIDDEN;

#endif

/* cupti_floor.c - the CUPTI floor of bench/run.sh --floor: an LD_PRELOAD
 * library that asks CUPTI for exactly what libcudalens.so asks for (the
 * callbacks of every API in include/cudalens/api.def, the two context
 * resource callbacks, and the activity kinds of include/cudalens/
 * activity.def) and does nothing with any of it: callbacks return at
 * once, activity buffers are handed back unread.  What a run costs under it
 * is what CUPTI itself costs; what cudalens costs above it is ours.  Not
 * part of cudalens.
 *
 *   cc -shared -fPIC -O2 -I$CUDA/include bench/cupti_floor.c -Iinclude \
 *      -o cupti_floor.so -L$CUDA/lib64 -l:libcupti.so.13
 *
 * It reads the shim's own switches, so that a run under it is the floor of
 * the same configuration: CUDALENS_GPU_ACTIVITY=0 leaves the activity kinds
 * out, and the kernel kind is enabled only with CUDALENS_KERNEL_TIMES=1. */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cb { CUpti_CallbackDomain domain; CUpti_CallbackId cbid; };

static const struct cb table[] = {
#define CL_RUNTIME(name, op, flags, fields) \
  {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##name},
#define CL_DRIVER(name, op, flags, fields) \
  {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##name},
#include "cudalens/api.def"
#undef CL_RUNTIME
#undef CL_DRIVER
    {CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED},
    {CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING},
};

static void CUPTIAPI on_call(void *ud, CUpti_CallbackDomain d,
                             CUpti_CallbackId id, const void *data)
{
  (void)ud, (void)d, (void)id, (void)data;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size,
                                      size_t *max_records)
{
  *buffer = aligned_alloc(8, 4u << 20); /* libcudalens.so's size */
  *size = *buffer ? 4u << 20 : 0;
  *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id,
                                      uint8_t *buffer, size_t size,
                                      size_t valid)
{
  (void)ctx, (void)stream_id, (void)size, (void)valid;
  free(buffer);
}

static CUpti_SubscriberHandle sub;

__attribute__((constructor)) static void floor_start(void)
{
  if (cuptiSubscribe(&sub, on_call, NULL) != CUPTI_SUCCESS) {
    fputs("cupti_floor: cannot subscribe to CUPTI\n", stderr);
    return;
  }
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    cuptiEnableCallback(1, sub, table[i].domain, table[i].cbid);
  const char *a = getenv("CUDALENS_GPU_ACTIVITY");
  if (a && !strcmp(a, "0"))
    return;
  const char *k = getenv("CUDALENS_KERNEL_TIMES");
  int kernel_times = k && !strcmp(k, "1");
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
#define CL_ACTIVITY(kind, kernels)                                             \
  if (!(kernels) || kernel_times)                                              \
    cuptiActivityEnable(kind);
#include "cudalens/activity.def"
#undef CL_ACTIVITY
}

__attribute__((destructor)) static void floor_stop(void)
{
  cuptiActivityFlushAll(1);
}

/* patches.cu - the device functions that the Compute Sanitizer patching API
 * calls at each global memory access of an instrumented kernel (modelled on
 * NVIDIA's MemoryTracker sample): each appends {address, size, flags} to the
 * launch's buffer (footprint.h), whose device address the probe passes as the
 * callbacks' user data.  Built as a tools patch:
 *   nvcc --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch
 * Loaded by probe.c with sanitizerAddPatchesFromFile. */
#include <sanitizer_patching.h>

#include "fp_buffer.h"

static __device__ void record(void *userdata, const void *ptr, uint32_t size,
                              uint32_t flags)
{
  struct fp_buffer *b = (struct fp_buffer *)userdata;
  if (!b)
    return;
  uint32_t i = atomicAdd(&b->count, 1u);
  if (i >= b->capacity)
    return; /* full: counted, not kept */
  struct fp_access *a = &b->accesses[i];
  a->address = (uint64_t)(uintptr_t)ptr;
  a->size = size;
  a->flags = flags;
}

/* SanitizerCallbackMemoryAccess */
extern "C" __device__ __noinline__ SanitizerPatchResult
fp_global_access(void *userdata, uint64_t pc, void *ptr, uint32_t accessSize,
                 uint32_t flags, const void *pData)
{
  (void)pc;
  (void)pData;
  record(userdata, ptr, accessSize, flags);
  return SANITIZER_PATCH_SUCCESS;
}

/* SanitizerCallbackMemcpyAsync: a global-to-shared asynchronous copy
 * (cp.async) reads SRC in global memory; DST is shared memory */
extern "C" __device__ __noinline__ SanitizerPatchResult
fp_memcpy_async(void *userdata, uint64_t pc, void *src, uint32_t dst,
                uint32_t accessSize)
{
  (void)pc;
  (void)dst;
  if (src)
    record(userdata, src, accessSize, SANITIZER_MEMORY_DEVICE_FLAG_READ);
  return SANITIZER_PATCH_SUCCESS;
}

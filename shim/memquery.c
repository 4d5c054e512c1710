/* memquery.c - what the driver says about memory a call made known, asked
 * when the call returns (from the CUPTI callback, whose own calls are not
 * recorded): the device of the physical allocation a cuMemMap maps (from
 * its handle: imported handles too), the size and device of memory opened
 * through IPC or imported from another process's pool, and the pool of a
 * stream-ordered allocation (whose access descriptors say which devices
 * reach it).  A query the driver lacks or refuses leaves the call as
 * decoded: unknown, never guessed. */
#include <cuda.h>
#include <string.h>

#include "driver.h"
#include "memquery.h"
#include "shim.h"

typedef CUresult (*props_fn)(CUmemAllocationProp *, CUmemGenericAllocationHandle);
typedef CUresult (*range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);
typedef CUresult (*attr_fn)(void *, CUpointer_attribute, CUdeviceptr);
typedef CUresult (*attrs_fn)(unsigned, CUpointer_attribute *, void **,
                             CUdeviceptr);

#define DRIVER_FN(type, name)                                                  \
  ({                                                                           \
    static type fn_;                                                           \
    static _Atomic int looked_;                                                \
    if (!atomic_load_explicit(&looked_, memory_order_acquire)) {               \
      fn_ = (type)cl_driver_sym(name);                                         \
      atomic_store_explicit(&looked_, 1, memory_order_release);                \
    }                                                                          \
    fn_;                                                                       \
  })

/* the device ordinal of the physical allocation HANDLE, -1 when unknown or
 * not device memory */
static int32_t handle_device(uint64_t handle)
{
  props_fn f = DRIVER_FN(props_fn, "cuMemGetAllocationPropertiesFromHandle");
  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  if (!f || !handle || f(&prop, (CUmemGenericAllocationHandle)handle) != CUDA_SUCCESS ||
      prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return -1;
  return prop.location.id;
}

void cl_memquery_resolve(struct cl_args *a)
{
  if (!a->dst || a->memkind == CL_MEMKIND_RESERVED)
    return;
  if (a->memkind == CL_MEMKIND_MAPPED) {
    /* host memory mapped (or a handle the driver would not describe):
     * memory of no device (-1) */
    a->device = handle_device(a->handle), a->has_device = 1;
    return;
  }
  attr_fn attr = DRIVER_FN(attr_fn, "cuPointerGetAttribute");
  if (!a->bytes) {
    /* opened or imported: the allocation's extent and device */
    range_fn range = DRIVER_FN(range_fn, "cuMemGetAddressRange_v2");
    CUdeviceptr base = 0;
    size_t size = 0;
    if (range && range(&base, &size, (CUdeviceptr)a->dst) == CUDA_SUCCESS &&
        base <= a->dst && a->dst < base + size)
      a->bytes = base + size - a->dst;
    int ordinal = -1;
    if (attr && attr(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                     (CUdeviceptr)a->dst) == CUDA_SUCCESS && ordinal >= 0)
      a->device = ordinal, a->has_device = 1;
  }
  if (a->memkind == CL_MEMKIND_DEVICE_ASYNC) {
    /* its pool (cudaMallocAsync: the current pool of the stream's device)
     * and the device that pool is on (cudaMallocFromPoolAsync may name a
     * pool of another device), in one question */
    attrs_fn attrs = DRIVER_FN(attrs_fn, "cuPointerGetAttributes");
    CUpointer_attribute which[2] = {CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                    CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE};
    int ordinal = -1;
    CUmemoryPool pool = NULL;
    void *values[2] = {&ordinal, &pool};
    if (attrs && attrs(2, which, values, (CUdeviceptr)a->dst) == CUDA_SUCCESS) {
      if (ordinal >= 0)
        a->device = ordinal, a->has_device = 1;
      if (pool && !a->handle)
        a->handle = (uint64_t)(uintptr_t)pool;
    }
  }
}

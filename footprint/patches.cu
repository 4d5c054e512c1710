/* patches.cu - the device functions that the Compute Sanitizer patching API
 * calls at each global memory access of an instrumented kernel (modelled on
 * NVIDIA's MemoryTracker sample): each appends {address, size, flags} to the
 * launch's buffer (fp_buffer.h), whose device address the collector passes
 * as the callbacks' user data; a warp's coalesced access is one record, and
 * a record the launch kept already is not kept again.  Built as a tools
 * patch (footprint/local.mk: nvcc --fatbin --keep-device-functions -Xptxas
 * --compile-as-tools-patch); loaded by the collector (and the probe of
 * tests/gpu/footprint) with sanitizerAddPatchesFromFile. */
#include <sanitizer_patching.h>

#include "fp_buffer.h"

/* appends one record; once the buffer is full, no more atomics on its one
 * counter (a launch may make 10^8 accesses, each an atomicAdd serialized on
 * one address, though only CAPACITY are kept): the first to see it exactly
 * full counts one more, so that COUNT > CAPACITY says records were dropped
 * (the ranges then a lower bound, not exact) */
static __device__ __forceinline__ void append(struct fp_buffer *b,
                                              uint64_t address, uint32_t size,
                                              uint32_t flags)
{
  /* a record this launch has kept already is not kept again (a loop reads
   * its tiles many times): its key, one-to-one for addresses below 2^47,
   * sizes 1..512 and flags below 256, in a table where a slot holds the
   * last key put there; a key is put there only by a record kept, so a
   * record is skipped only when the same one was kept */
  if (b->seen && address < (1ull << 47) && size >= 1 && size <= 512 &&
      flags < 256) {
    uint64_t key = address | (uint64_t)(size - 1) << 47 | (uint64_t)flags << 56;
    if (key) {
      uint64_t h = key * 0x9e3779b97f4a7c15ull;
      volatile uint64_t *slot = &b->seen[(h >> 40) & (FP_SEEN_SLOTS - 1)];
      if (*slot == key)
        return;
      *slot = key;
    }
  }
  uint32_t seen = *(volatile uint32_t *)&b->count;
  if (seen >= b->capacity) {
    if (seen == b->capacity)
      atomicAdd(&b->count, 1u);
    return;
  }
  uint32_t i = atomicAdd(&b->count, 1u);
  if (i >= b->capacity)
    return; /* full: counted, not kept */
  struct fp_access *a = &b->accesses[i];
  a->address = address;
  a->size = size;
  a->flags = flags;
}

/* One access of each active lane.  When the whole warp makes accesses of
 * the same size and kind at this instruction and the bytes they touch are
 * exactly one range (each address on the SIZE grid from the lowest, no two
 * alike counted twice, no gap: a coalesced access), lane 0 appends that
 * range as one record (32 records fewer); otherwise each lane appends its
 * own.  The union of the records is the same bytes either way.  (Warp-wide
 * shuffles only: a tools patch may not use the redux instructions.) */
static __device__ void record(void *userdata, const void *ptr, uint32_t size,
                              uint32_t flags)
{
  struct fp_buffer *b = (struct fp_buffer *)userdata;
  if (!b)
    return;
  const unsigned all = 0xffffffffu;
  uint64_t address = (uint64_t)(uintptr_t)ptr;
  uint32_t hi = (uint32_t)(address >> 32), lo = (uint32_t)address;
  if (__activemask() == all) {
    /* one 4 GiB window, no wrap past it, sizes 1..16, one size and kind */
    /* (every lane runs each warp-wide call: none inside a condition) */
    uint64_t kind = ((uint64_t)flags << 32) | size;
    uint32_t hi0 = __shfl_sync(all, hi, 0);
    unsigned alike = __match_any_sync(all, kind);
    bool simple = size >= 1 && size <= 16 && lo <= 0xffffffffu - size &&
                  hi == hi0 && alike == all;
    if (__all_sync(all, simple)) {
      uint32_t first = lo, end = lo + size;
      for (int d = 16; d; d >>= 1) {
        first = min(first, __shfl_xor_sync(all, first, d));
        end = max(end, __shfl_xor_sync(all, end, d));
      }
      unsigned lane;
      asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
      unsigned same = __match_any_sync(all, lo);
      unsigned distinct =
          __popc(__ballot_sync(all, (unsigned)(__ffs(same) - 1) == lane));
      bool on_grid = __all_sync(all, (lo - first) % size == 0);
      if (on_grid && (uint64_t)distinct * size == (uint64_t)(end - first)) {
        if (lane == 0)
          append(b, ((uint64_t)hi << 32) | first, end - first, flags);
        return;
      }
    }
  }
  append(b, address, size, flags);
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

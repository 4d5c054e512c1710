/* fp_buffer.h - the record that the device patches (patches.cu) append for
 * each global memory access of an instrumented launch, and the buffer they
 * append to; shared by the patches and the host side that reads them back
 * (collector.c; tests/gpu/footprint/probe.c).  Plain C layout: nvcc compiles it as C++, gcc as C. */
#ifndef CL_FP_BUFFER_H
#define CL_FP_BUFFER_H
#include <stdint.h>

/* one access, or a warp's coalesced accesses as one range: the address, its
 * size in bytes (1..16 for one access, up to 512 for a warp's, or the copy's
 * size for an asynchronous copy into shared memory) and the Sanitizer flags
 * (SANITIZER_MEMORY_DEVICE_FLAG_READ 0x1, _WRITE 0x2; both for an atomic) */
struct fp_access {
  uint64_t address;
  uint32_t size;
  uint32_t flags;
};

/* the buffer of one launch, in device memory: COUNT is the number of
 * records kept, or more than CAPACITY when some were dropped (once full,
 * the patches stop counting: COUNT - CAPACITY is not how many) */
struct fp_buffer {
  uint32_t count;
  uint32_t capacity;
  struct fp_access *accesses;
  /* the records kept so far, by key (FP_SEEN_SLOTS slots, zeroed before
   * each launch; NULL: none): a record already there is not kept again */
  uint64_t *seen;
};

/* slots of the table of records seen (a power of two: 2 MiB) */
#define FP_SEEN_SLOTS (1u << 18)
#endif

/* fnv.h - FNV-1a, the one 64-bit hash of cudalens: finding fingerprints,
 * the checksums and collective sums of reduced results, the report's
 * interned strings, and the shim's keys of NCCL communicators. */
#ifndef CUDALENS_FNV_H
#define CUDALENS_FNV_H

#include <stddef.h>
#include <stdint.h>

#define CL_FNV_OFFSET 0xcbf29ce484222325ULL /* the 64-bit offset basis */

/* H updated with the N bytes at P */
static inline uint64_t cl_fnv1a(uint64_t h, const void *p, size_t n)
{
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

#endif

/* fnv.h - FNV-1a, the one 64-bit hash of cudalens: finding fingerprints,
 * the checksums and collective sums of reduced results, the report's and
 * the shim's interned strings, the shim's table of patched objects and its
 * keys of NCCL communicators. */
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

/* H updated with the bytes of string S, without its NUL */
static inline uint64_t cl_fnv1a_str(uint64_t h, const char *s)
{
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return h;
}

#endif

/* xorshift.h - Marsaglia's xorshift64 (13, 7, 17), the one pseudo-random
 * generator of cudalens's tests and benchmarks: the same draws every run
 * from a given nonzero seed (test_kparams, test_hostcode, gen_recording,
 * writer_rate, launch_mix).  Not for anything that ships. */
#ifndef CUDALENS_XORSHIFT_H
#define CUDALENS_XORSHIFT_H

#include <stdint.h>

/* the next value of the generator whose state *S is (never 0) */
static inline uint64_t cl_xorshift64(uint64_t *s)
{
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}

#endif

/* check.cuh - CHECK(call) of the CUDA benchmarks: a call that fails prints
 * "BENCH_NAME: CALL failed: REASON" and exits 1.  Define BENCH_NAME (the
 * program's name, a string) before including it. */
#ifndef BENCH_CHECK_CUH
#define BENCH_CHECK_CUH
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, BENCH_NAME ": %s failed: %s\n", #call,              \
                   cudaGetErrorString(e_));                                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)
#endif

// launch_bound.cu - benchmark of per-launch overhead: launches an empty kernel
// N times (default 200,000) alternating between two streams, synchronizes,
// and prints the elapsed seconds of the loop.  Used by bench/run.sh to compare
// a native run with one under libcudalens.so.  With CUDALENS_BENCH_PHASES=1
// under the shim, the launches run in blocks of BLOCK (default 20,000) in
// the shim's phases (phases.cuh; bench/phases.sh pairs them).
//   launch_bound [LAUNCHES [BLOCK]]
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cuda_runtime.h>

#define BENCH_NAME "launch_bound"
#include "check.cuh"
#include "phases.cuh"

__global__ void empty_kernel() {}

int main(int argc, char **argv)
{
  long n = argc > 1 ? std::atol(argv[1]) : 200000;
  long block = argc > 2 ? std::atol(argv[2]) : 20000;
  if (n < 1 || block < 1) {
    std::fprintf(stderr, "usage: launch_bound [LAUNCHES [BLOCK]]\n");
    return 2;
  }
  cudaStream_t s[2];
  for (int i = 0; i < 2; i++)
    CHECK(cudaStreamCreate(&s[i]));
  // warm up: context creation and module loading are not measured
  for (int i = 0; i < 100; i++)
    empty_kernel<<<1, 1, 0, s[i & 1]>>>();
  CHECK(cudaDeviceSynchronize());

  phases ph = phases_init();
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; i++) {
    if (phases_active(ph) && i % block == 0)
      phases_boundary(ph);
    empty_kernel<<<1, 1, 0, s[i & 1]>>>();
  }
  CHECK(cudaGetLastError());
  if (phases_active(ph))
    phases_boundary(ph, true);
  CHECK(cudaDeviceSynchronize());
  double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                  .count();

  for (int i = 0; i < 2; i++)
    CHECK(cudaStreamDestroy(s[i]));
  std::printf("elapsed %.6f s (%ld launches on 2 streams, %.2f us/launch)\n", dt,
              n, dt / (double)n * 1e6);
  return 0;
}

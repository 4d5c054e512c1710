// copy_bound.cu - benchmark of per-copy overhead: N rounds (default 20,000) of
// a cudaMemcpyAsync host-to-device and device-to-host of a pinned buffer,
// alternating between two streams, 256 KiB each time and 4 MiB every eighth
// round, with a synchronization of both streams every sixteen rounds; prints
// the elapsed seconds of the loop.  Used by bench/run.sh.  With
// CUDALENS_BENCH_PHASES=1 under the shim, the rounds run in blocks of BLOCK
// (default 2,000, a multiple of 16) in the shim's phases (phases.cuh;
// bench/phases.sh pairs them).
//   copy_bound [ROUNDS [BLOCK]]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <cuda_runtime.h>

#define BENCH_NAME "copy_bound"
#include "check.cuh"
#include "phases.cuh"

static const size_t kSmall = 256 << 10, kLarge = 4 << 20;

int main(int argc, char **argv)
{
  long n = argc > 1 ? std::atol(argv[1]) : 20000;
  long block = argc > 2 ? std::atol(argv[2]) : 2000;
  if (n < 1 || block < 16 || block % 16) {
    std::fprintf(stderr, "usage: copy_bound [ROUNDS [BLOCK]] (BLOCK a multiple of 16)\n");
    return 2;
  }
  cudaStream_t s[2];
  unsigned char *host_in[2], *host_out[2], *dev[2];
  for (int i = 0; i < 2; i++) {
    CHECK(cudaStreamCreate(&s[i]));
    CHECK(cudaMallocHost((void **)&host_in[i], kLarge));
    CHECK(cudaMallocHost((void **)&host_out[i], kLarge));
    CHECK(cudaMalloc((void **)&dev[i], kLarge));
    std::memset(host_in[i], 0x5a + i, kLarge);
  }
  // warm up
  for (int i = 0; i < 2; i++) {
    CHECK(cudaMemcpyAsync(dev[i], host_in[i], kLarge, cudaMemcpyHostToDevice, s[i]));
    CHECK(cudaMemcpyAsync(host_out[i], dev[i], kLarge, cudaMemcpyDeviceToHost, s[i]));
  }
  CHECK(cudaDeviceSynchronize());

  double bytes = 0;
  phases ph = phases_init();
  auto t0 = std::chrono::steady_clock::now();
  for (long r = 0; r < n; r++) {
    if (phases_active(ph) && r % block == 0)
      phases_boundary(ph);
    int i = (int)(r & 1);
    size_t size = r % 8 == 7 ? kLarge : kSmall;
    CHECK(cudaMemcpyAsync(dev[i], host_in[i], size, cudaMemcpyHostToDevice, s[i]));
    CHECK(cudaMemcpyAsync(host_out[i], dev[i], size, cudaMemcpyDeviceToHost, s[i]));
    bytes += 2.0 * (double)size;
    if (r % 16 == 15) {
      CHECK(cudaStreamSynchronize(s[0]));
      CHECK(cudaStreamSynchronize(s[1]));
    }
  }
  CHECK(cudaDeviceSynchronize());
  if (phases_active(ph))
    phases_boundary(ph, true);
  double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                  .count();

  for (int i = 0; i < 2; i++) {
    if (host_out[i][kSmall - 1] != (unsigned char)(0x5a + i)) {
      std::fprintf(stderr, "copy_bound: wrong data on stream %d\n", i);
      return 1;
    }
    CHECK(cudaFree(dev[i]));
    CHECK(cudaFreeHost(host_in[i]));
    CHECK(cudaFreeHost(host_out[i]));
    CHECK(cudaStreamDestroy(s[i]));
  }
  std::printf("elapsed %.6f s (%ld rounds, %.1f GB/s)\n", dt, n,
              bytes / dt / 1e9);
  return 0;
}

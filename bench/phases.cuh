/* phases.cuh - the benchmark's side of in-process pairing for the CUDA
 * benchmarks (issue 25; shim/benchphase.c), as bench/phases.py is for the
 * Python ones: with CUDALENS_BENCH_PHASES=1 under libcudalens.so,
 * phases_boundary() between blocks of a loop synchronizes the device,
 * prints the block just ended as `block PHASE SECONDS` (0 off, 1 floor,
 * 2 on) and has the shim switch to the next phase; with
 * CUDALENS_BENCH_PHASES=native (no shim) it times the blocks the same way
 * and prints them as phase 3; phases_active() is false without the
 * variable.  Include check.cuh first. */
#ifndef BENCH_PHASES_CUH
#define BENCH_PHASES_CUH
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

struct phases {
  int (*fn)(int);
  bool native;
  int phase;
  std::chrono::steady_clock::time_point t0;
};

static phases phases_init()
{
  phases p = {nullptr, false, -1, {}};
  const char *v = std::getenv("CUDALENS_BENCH_PHASES");
  p.native = v && !std::strcmp(v, "native");
  if (!v || std::strcmp(v, "1"))
    return p;
  p.fn = (int (*)(int))dlsym(RTLD_DEFAULT, "cudalens_bench_phase");
  if (!p.fn) {
    std::fprintf(stderr, BENCH_NAME ": CUDALENS_BENCH_PHASES=1 without libcudalens.so\n");
    std::exit(1);
  }
  return p;
}

static bool phases_active(const phases &p) { return p.fn || p.native; }

static void phases_boundary(phases &p, bool last = false)
{
  CHECK(cudaDeviceSynchronize());
  auto t = std::chrono::steady_clock::now();
  if (p.phase >= 0)
    std::printf("block %d %.6f\n", p.phase,
                std::chrono::duration<double>(t - p.t0).count());
  p.phase = p.native ? 3 : p.fn(last ? 2 : -1);
  if (p.phase < 0) {
    std::fprintf(stderr, BENCH_NAME ": the shim did not switch (not recording?)\n");
    std::exit(1);
  }
  p.t0 = std::chrono::steady_clock::now();
}
#endif

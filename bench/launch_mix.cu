// launch_mix.cu - the shim's per-call cost on the application thread, one
// kind of call at a time (bench/launch_cost.sh runs it under callgrind on
// the simulated runtime; bench/kparams_cold.sh under a selftime build):
// `launch_mix MODE N` makes N calls of MODE after a warm-up and prints
// nothing but the count.  Environment (a benchmark's, not a user's):
//   LAUNCH_MIX_EVICT_MIB=M  before each call, write one byte of every
//           64-byte line of M MiB of its own (the cache lines the shim's
//           data held are then gone, as between two CUDA calls of a
//           Python program: bench/README.md, "Cold caches")
//   LAUNCH_MIX_LIBS=DIR     dlopen every *.so in DIR first (many loaded
//           objects, as PyTorch's few hundred); torch's code addresses
//           are then taken from them too
// MODE:
//   empty   an empty kernel launch (bench/launch_bound.cu's), 2 streams
//   args    a launch with resnet-like arguments: 4 device pointers, 2
//           ints and a 584-byte by-value struct (79 words scanned in all)
//   torch   a launch like a PyTorch elementwise one (kparams.c's scan
//           on the GPU: 79 words, ~2 map searches, ~19 host-code lookups):
//           a long long and a 78-word by-value struct holding 4 device
//           pointers in 2 allocations, sizes and strides, and 23 words
//           that PyTorch never sets (what the stack held): 8 code
//           addresses (return addresses), 11 host heap pointers and 4
//           small numbers, drawn anew for each launch from pools of 64
//   event   cudaEventRecord on a stream
//   query   cudaStreamQuery
//   copy    cudaMemcpyAsync device to device, 4 KiB
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <dirent.h>
#include <dlfcn.h>
#include <string>
#include <vector>

#define BENCH_NAME "launch_mix"
#include "check.cuh"
#include "../include/cudalens/xorshift.h"

struct Meta { // like PyTorch's TensorIterator offsets / sizes
  const float *extra[4];
  long long sizes[25], strides[25], n;
  long long pad[18];
};

struct TorchMeta { // TensorIterator-like, with words never set
  float *data[4];
  long long sizes[25], strides[25], numel;
  unsigned long long stack[23];
};

__global__ void empty_kernel() {}
__global__ void torch_kernel(long long n, TorchMeta meta)
{
  if (n < 0)
    meta.data[0][0] = meta.data[1][0] + (float)meta.numel;
}

static uint64_t rng = 88172645463325252ull;
static unsigned pick(unsigned n) // the same draws every run
{
  return (unsigned)(cl_xorshift64(&rng) % n);
}

// addresses inside functions of the loaded objects (return addresses)
static void code_pool(unsigned long long *pool, int n)
{
  std::vector<void *> fns = {(void *)&std::printf, (void *)&std::memcpy,
                             (void *)&std::qsort, (void *)&cudaGetErrorString,
                             (void *)&cudaStreamQuery, (void *)&pick};
  const char *dir = std::getenv("LAUNCH_MIX_LIBS");
  if (dir && *dir) {
    std::vector<std::string> names;
    if (DIR *d = opendir(dir)) {
      while (struct dirent *e = readdir(d))
        if (std::strstr(e->d_name, ".so"))
          names.push_back(std::string(dir) + "/" + e->d_name);
      closedir(d);
    }
    for (auto &name : names) {
      void *h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      void *f = h ? dlsym(h, "launch_mix_lib_fn") : nullptr;
      if (f)
        fns.push_back(f);
    }
    std::fprintf(stderr, "launch_mix: %zu of %zu objects from %s\n",
                 fns.size() - 6, names.size(), dir);
  }
  for (int i = 0; i < n; i++)
    pool[i] = (unsigned long long)fns[pick((unsigned)fns.size())] + 4 + pick(24);
}
__global__ void args_kernel(float *out, const float *a, const float *b,
                            float *c, int n, int m, Meta meta)
{
  if (n < 0)
    out[0] = a[0] + b[0] + c[0] + m + (float)meta.n;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "empty";
  long n = argc > 2 ? std::atol(argv[2]) : 2000;
  cudaStream_t s[2];
  for (int i = 0; i < 2; i++)
    CHECK(cudaStreamCreate(&s[i]));
  float *buf[4];
  for (int i = 0; i < 4; i++)
    CHECK(cudaMalloc(&buf[i], 1 << 20));
  Meta meta;
  std::memset(&meta, 0, sizeof meta);
  for (int i = 0; i < 4; i++)
    meta.extra[i] = buf[i] + 64 * i;
  for (int i = 0; i < 25; i++)
    meta.sizes[i] = 1 + i, meta.strides[i] = 1 << (i % 16);
  meta.n = 1 << 18;
  TorchMeta tm;
  std::memset(&tm, 0, sizeof tm);
  for (int i = 0; i < 4; i++) // 2 allocations, as a caching allocator's
    tm.data[i] = buf[i / 2] + 1024 * (i % 2);
  for (int i = 0; i < 25; i++)
    tm.sizes[i] = 1 + i, tm.strides[i] = 1 << (i % 16);
  tm.numel = 1 << 18;
  unsigned long long codes[64], heap[64];
  code_pool(codes, 64);
  for (int i = 0; i < 64; i++) // 16 B to 512 KiB: brk heap and mmap
    heap[i] = (unsigned long long)std::malloc(16ull << (i % 16));
  size_t evict = (size_t)std::atol(std::getenv("LAUNCH_MIX_EVICT_MIB")
                                     ? std::getenv("LAUNCH_MIX_EVICT_MIB") : "0") << 20;
  unsigned char *ebuf = evict ? (unsigned char *)std::calloc(evict, 1) : nullptr;
  cudaEvent_t ev;
  CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  int kind = !std::strcmp(mode, "empty") ? 0 : !std::strcmp(mode, "args") ? 1
           : !std::strcmp(mode, "event") ? 2 : !std::strcmp(mode, "query") ? 3
           : !std::strcmp(mode, "copy") ? 4 : !std::strcmp(mode, "torch") ? 5 : -1;
  if (kind < 0 || n < 1) {
    std::fprintf(stderr, "usage: launch_mix empty|args|torch|event|query|copy N\n");
    return 2;
  }
  for (long i = 0; i < n + 100; i++) { // 100 of warm-up
    cudaStream_t st = s[i & 1];
    for (size_t k = 0; k < evict; k += 64)
      ebuf[k]++;
    switch (kind) {
    case 0: empty_kernel<<<1, 1, 0, st>>>(); break;
    case 1:
      args_kernel<<<1, 1, 0, st>>>(buf[0], buf[1], buf[2], buf[3], 1 << 18,
                                   (int)i, meta);
      break;
    case 5:
      for (int k = 0; k < 23; k++) // 8 code, 11 heap, 4 small, shuffled
        tm.stack[k] = 0;
      for (int k = 0; k < 19; k++) {
        int slot;
        do
          slot = (int)pick(23);
        while (tm.stack[slot]);
        tm.stack[slot] = k < 8 ? codes[pick(64)] : heap[pick(64)] + 8 * pick(2);
      }
      for (int k = 0; k < 23; k++)
        if (!tm.stack[k])
          tm.stack[k] = 1 + pick(1000);
      torch_kernel<<<1, 1, 0, st>>>(1 << 18, tm);
      break;
    case 2: CHECK(cudaEventRecord(ev, st)); break;
    case 3: (void)cudaStreamQuery(st); break;
    case 4:
      CHECK(cudaMemcpyAsync(buf[0], buf[1], 4096, cudaMemcpyDeviceToDevice, st));
      break;
    }
  }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventDestroy(ev));
  for (int i = 0; i < 64; i++)
    std::free((void *)heap[i]);
  std::free(ebuf);
  for (int i = 0; i < 4; i++)
    CHECK(cudaFree(buf[i]));
  for (int i = 0; i < 2; i++)
    CHECK(cudaStreamDestroy(s[i]));
  std::printf("%s %ld\n", mode, n);
  return 0;
}

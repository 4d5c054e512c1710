// launch_mix.cu - the shim's per-call cost on the application thread, one
// kind of call at a time (bench/launch_cost.sh runs it under callgrind on
// the simulated runtime): `launch_mix MODE N` makes N calls of MODE after a
// warm-up and prints nothing but the count.  MODE:
//   empty   an empty kernel launch (bench/launch_bound.cu's), 2 streams
//   args    a launch with resnet-like arguments: 4 device pointers, 2
//           ints and a 584-byte by-value struct (79 words scanned in all)
//   event   cudaEventRecord on a stream
//   query   cudaStreamQuery
//   copy    cudaMemcpyAsync device to device, 4 KiB
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define BENCH_NAME "launch_mix"
#include "check.cuh"

struct Meta { // like PyTorch's TensorIterator offsets / sizes
  const float *extra[4];
  long long sizes[25], strides[25], n;
  long long pad[18];
};

__global__ void empty_kernel() {}
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
  cudaEvent_t ev;
  CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  int kind = !std::strcmp(mode, "empty") ? 0 : !std::strcmp(mode, "args") ? 1
           : !std::strcmp(mode, "event") ? 2 : !std::strcmp(mode, "query") ? 3
           : !std::strcmp(mode, "copy") ? 4 : -1;
  if (kind < 0 || n < 1) {
    std::fprintf(stderr, "usage: launch_mix empty|args|event|query|copy N\n");
    return 2;
  }
  for (long i = 0; i < n + 100; i++) { // 100 of warm-up
    cudaStream_t st = s[i & 1];
    switch (kind) {
    case 0: empty_kernel<<<1, 1, 0, st>>>(); break;
    case 1:
      args_kernel<<<1, 1, 0, st>>>(buf[0], buf[1], buf[2], buf[3], 1 << 18,
                                   (int)i, meta);
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
  for (int i = 0; i < 4; i++)
    CHECK(cudaFree(buf[i]));
  for (int i = 0; i < 2; i++)
    CHECK(cudaStreamDestroy(s[i]));
  std::printf("%s %ld\n", mode, n);
  return 0;
}

/* fp_test.cu - the program that the footprint probe instruments (probe.sh).
 *
 *   fp_test check   three kernels whose footprints are known, then checks
 *                   their results on the host:
 *                   fp_halfwrite(out, in, n) writes out[0, n/2) and only
 *                   reads in[0, n) through a non-const pointer;
 *                   fp_gather(dst, table) reads a pointer from table[0] and
 *                   reads 64 floats through it (memory no argument names);
 *                   fp_atomic(counter) adds to one word atomically
 *   fp_test loop N  N launches of a tiny kernel (32 threads, 128 bytes read
 *                   and written) on one stream, then one synchronize; prints
 *                   the launch loop's wall time ("loop N launches S s")
 *   fp_test late N  the loop, then the check: its three kernels first
 *                   launched after N others (for the collector's settle:
 *                   with CUDALENS_FOOTPRINT_SETTLE below N they come after
 *                   their module was unpatched; missed, or with
 *                   CUDALENS_FOOTPRINT_REPATCH=1 instrumented or lost)
 * Exit status 0 when every CUDA call succeeded and the results are right. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 4096 /* floats in each of the two buffers of fp_halfwrite */

#define CHECK(x)                                                        \
  do {                                                                  \
    cudaError_t e_ = (x);                                               \
    if (e_ != cudaSuccess) {                                            \
      fprintf(stderr, "fp_test: %s: %s\n", #x, cudaGetErrorString(e_)); \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

extern "C" __global__ void fp_halfwrite(float *out, float *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2)
    out[i] = in[i] + in[i + n / 2];
}

extern "C" __global__ void fp_gather(float *dst, float *const *table)
{
  const float *src = table[0];
  int i = threadIdx.x;
  dst[i] = src[i] * 2.0f;
}

extern "C" __global__ void fp_atomic(unsigned *counter)
{
  atomicAdd(counter, 1u);
}

extern "C" __global__ void fp_tiny(float *x)
{
  x[threadIdx.x] += 1.0f;
}

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int check(void)
{
  float *out, *in, *src, *dst, **table;
  unsigned *counter;
  CHECK(cudaMalloc(&out, N * sizeof(float)));
  CHECK(cudaMalloc(&in, N * sizeof(float)));
  CHECK(cudaMalloc(&src, 64 * sizeof(float)));
  CHECK(cudaMalloc(&dst, 64 * sizeof(float)));
  CHECK(cudaMalloc(&table, sizeof(float *)));
  CHECK(cudaMalloc(&counter, sizeof(unsigned)));
  static float h[N];
  for (int i = 0; i < N; i++)
    h[i] = (float)i;
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(src, h, 64 * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(table, &src, sizeof src, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, N * sizeof(float)));
  CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
  printf("buffers out=%p in=%p src=%p dst=%p table=%p counter=%p\n",
         (void *)out, (void *)in, (void *)src, (void *)dst, (void *)table,
         (void *)counter);

  fp_halfwrite<<<N / 2 / 256, 256>>>(out, in, N);
  CHECK(cudaGetLastError());
  fp_gather<<<1, 64>>>(dst, table);
  CHECK(cudaGetLastError());
  fp_atomic<<<2, 128>>>(counter);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  static float r[N];
  float g[64];
  unsigned c;
  CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g, dst, sizeof g, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += r[i] != (i < N / 2 ? (float)i + (float)(i + N / 2) : 0.0f);
  for (int i = 0; i < 64; i++)
    bad += g[i] != 2.0f * (float)i;
  bad += c != 256;
  printf("check %s (%d wrong)\n", bad ? "FAILED" : "ok", bad);
  CHECK(cudaFree(out));
  CHECK(cudaFree(in));
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  CHECK(cudaFree(table));
  CHECK(cudaFree(counter));
  return bad != 0;
}

static int loop(long n)
{
  float *x;
  cudaStream_t s;
  CHECK(cudaMalloc(&x, 32 * sizeof(float)));
  CHECK(cudaMemset(x, 0, 32 * sizeof(float)));
  CHECK(cudaStreamCreate(&s));
  fp_tiny<<<1, 32, 0, s>>>(x); /* loads the module, warms up */
  CHECK(cudaStreamSynchronize(s));
  double t0 = now();
  for (long i = 0; i < n; i++)
    fp_tiny<<<1, 32, 0, s>>>(x);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(s));
  double t = now() - t0;
  float h;
  CHECK(cudaMemcpy(&h, x, sizeof h, cudaMemcpyDeviceToHost));
  printf("loop %ld launches %.6f s\n", n, t);
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(x));
  return h != (float)(n + 1);
}

int main(int argc, char **argv)
{
  if (argc == 2 && !strcmp(argv[1], "check"))
    return check();
  if (argc == 3 && !strcmp(argv[1], "loop"))
    return loop(atol(argv[2]));
  if (argc == 3 && !strcmp(argv[1], "late")) {
    int bad = loop(atol(argv[2])); /* first: the check's kernels come after */
    return check() || bad;
  }
  fprintf(stderr, "usage: fp_test check | fp_test loop N | fp_test late N\n");
  return 2;
}

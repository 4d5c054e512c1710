/* fp_races.cu - the GPU check of issue 23's footprints (fp_check.sh): four
 * programs in one, each a case the footprints decide.
 *
 *   fp_races shared   two host threads, each with its own non-blocking
 *                     stream, launch scale_into(out, in_t, n) on ONE output
 *                     buffer at once, nothing ordering them: a real race.
 *                     Without footprints a shared-argument-race warning
 *                     (a non-const pointer may only be read); with them a
 *                     stream-race error (the footprint says it is written)
 *   fp_races halves   write_half(p, n) on two unordered streams, on the two
 *                     halves of one allocation: clean either way (the
 *                     footprint's extents do not overlap)
 *   fp_races gather   write_k(src) on one stream while gather_k(dst, table)
 *                     on another, unordered, reads src through table[0]:
 *                     nothing without footprints (no argument names src),
 *                     an indirect-race with them
 *   fp_races gemm     cublasSgemmBatched on stream a (cublasSetStream)
 *                     computes C[i] = A[i] * B[i] through device arrays of
 *                     pointers, while read_c(dst, C[0]) on stream b,
 *                     unordered, reads C[0] by its own argument: nothing
 *                     without footprints (the GEMM's arguments name only
 *                     the pointer arrays), an indirect-race with them (the
 *                     GEMM's writes to C[0], placed by allocation order)
 * C++ kernels (mangled names), so that the shim's and the Sanitizer's names
 * must agree.  Exit 0 when every CUDA and cuBLAS call succeeded.  Built
 * with nvcc -arch=sm_90 -cudart shared fp_races.cu -lcublas -lpthread. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1 << 16)
#define CHECK(x)                                                         \
  do {                                                                   \
    cudaError_t e_ = (x);                                                \
    if (e_ != cudaSuccess) {                                             \
      fprintf(stderr, "fp_races: %s: %s\n", #x, cudaGetErrorString(e_)); \
      exit(1);                                                           \
    }                                                                    \
  } while (0)

__global__ void scale_into(float *out, float *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * 2.0f;
}

__global__ void write_half(float *p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = (float)i;
}

__global__ void write_k(float *p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = (float)i;
}

__global__ void gather_k(float *dst, float **table, int n)
{
  int i = threadIdx.x;
  if (i < n)
    dst[i] = table[0][i];
}

__global__ void read_c(float *dst, const float *src, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i] + 1.0f;
}

#define CHECK_BLAS(x)                                                    \
  do {                                                                   \
    cublasStatus_t s_ = (x);                                             \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                   \
      fprintf(stderr, "fp_races: %s: cuBLAS status %d\n", #x, (int)s_);  \
      exit(1);                                                           \
    }                                                                    \
  } while (0)

/* gemm: C[i] (M x M) = A[i] (M x K) * B[i] (K x M), i < BATCH; sizes of
 * their own (9,216 and 6,144 bytes), so that the allocation order the
 * footprint places C[0] by is not mixed with cuBLAS's own allocations */
#define M 48
#define K 32
#define BATCH 2
static void gemm(cudaStream_t a, cudaStream_t b)
{
  float *A[BATCH], *B[BATCH], *C[BATCH], **dA, **dB, **dC, *dst;
  for (int i = 0; i < BATCH; i++) {
    CHECK(cudaMalloc(&A[i], M * K * sizeof(float)));
    CHECK(cudaMalloc(&B[i], K * M * sizeof(float)));
    CHECK(cudaMalloc(&C[i], M * M * sizeof(float)));
    CHECK(cudaMemset(A[i], 0, M * K * sizeof(float)));
    CHECK(cudaMemset(B[i], 0, K * M * sizeof(float)));
  }
  CHECK(cudaMalloc(&dA, sizeof A));
  CHECK(cudaMalloc(&dB, sizeof B));
  CHECK(cudaMalloc(&dC, sizeof C));
  CHECK(cudaMalloc(&dst, M * M * sizeof(float)));
  CHECK(cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  CHECK_BLAS(cublasSetStream(h, a));
  CHECK(cudaDeviceSynchronize());
  const float alpha = 1.0f, beta = 0.0f;
  CHECK_BLAS(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, M, K, &alpha,
                                (const float *const *)dA, M,
                                (const float *const *)dB, K, &beta, dC, M,
                                BATCH));
  /* nothing orders this read of C[0] after the GEMM's write */
  read_c<<<(M * M + 255) / 256, 256, 0, b>>>(dst, C[0], M * M);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK_BLAS(cublasDestroy(h));
}

static float *out, *in[2];
static pthread_barrier_t bar;

static void *shared_thread(void *arg)
{
  int t = (int)(long)arg;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  pthread_barrier_wait(&bar);
  scale_into<<<N / 256, 256, 0, s>>>(out, in[t], N);
  CHECK(cudaGetLastError());
  /* both launched before either thread waits: had one thread seen its
   * kernel finish before the other launched, a handoff between them could
   * order the two (a thread-handoff-race warning, as an H200 run gave) */
  pthread_barrier_wait(&bar);
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaStreamDestroy(s));
  return NULL;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  if (!strcmp(mode, "shared")) {
    CHECK(cudaMalloc(&out, N * sizeof(float)));
    for (int t = 0; t < 2; t++) {
      CHECK(cudaMalloc(&in[t], N * sizeof(float)));
      CHECK(cudaMemset(in[t], 0, N * sizeof(float)));
    }
    CHECK(cudaDeviceSynchronize());
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t th[2];
    for (long t = 0; t < 2; t++)
      pthread_create(&th[t], NULL, shared_thread, (void *)t);
    for (int t = 0; t < 2; t++)
      pthread_join(th[t], NULL);
  } else if (!strcmp(mode, "halves")) {
    float *d;
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    write_half<<<N / 2 / 256, 256, 0, a>>>(d, N / 2);
    write_half<<<N / 2 / 256, 256, 0, b>>>(d + N / 2, N / 2);
    CHECK(cudaGetLastError());
  } else if (!strcmp(mode, "gather")) {
    float *src, *dst, **table;
    CHECK(cudaMalloc(&src, 64 * sizeof(float)));
    CHECK(cudaMalloc(&dst, 64 * sizeof(float)));
    CHECK(cudaMalloc(&table, sizeof(float *)));
    CHECK(cudaMemcpy(table, &src, sizeof src, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
    write_k<<<1, 64, 0, a>>>(src, 64);
    gather_k<<<1, 64, 0, b>>>(dst, table, 64);
    CHECK(cudaGetLastError());
  } else if (!strcmp(mode, "gemm")) {
    gemm(a, b);
  } else {
    fprintf(stderr, "usage: fp_races shared|halves|gather|gemm\n");
    return 2;
  }
  CHECK(cudaDeviceSynchronize());
  printf("fp_races %s: done\n", mode);
  return 0;
}

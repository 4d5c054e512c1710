/* cu12_host.c - a CUDA 12 program for the GPU check of issue 12: host code
 * only (so that gcc builds it against the headers and libcudart.so.12 of
 * the nvidia-cuda-runtime-cu12 wheel), doing what cudalens records: device
 * and pinned allocations, copies both ways on a stream, a memset, events,
 * synchronizations.  The D2H into pinned memory is read after the stream is
 * synchronized (correct); with argument `bug` it is read before (the
 * host-read-before-sync cudalens must report).  Prints `cu12: ok SUM`.
 *
 *   gcc -I$W/nvidia/cuda_runtime/include tests/gpu/cu12_host.c -o cu12_host \
 *       -L$W/nvidia/cuda_runtime/lib -l:libcudart.so.12
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

int main(int argc, char **argv)
{
  int bug = argc > 1 && !strcmp(argv[1], "bug");
  enum { N = 1 << 20 };
  int rt = 0;
  CK(cudaRuntimeGetVersion(&rt));
  int *d, *h;
  cudaStream_t s;
  cudaEvent_t ev;
  CK(cudaMalloc((void **)&d, N * sizeof *d));
  CK(cudaMallocHost((void **)&h, N * sizeof *h));
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaEventCreate(&ev));
  for (int i = 0; i < N; i++)
    h[i] = i % 7;
  CK(cudaMemcpyAsync(d, h, N * sizeof *d, cudaMemcpyHostToDevice, s));
  CK(cudaMemsetAsync(d, 0, 64 * sizeof *d, s));
  CK(cudaEventRecord(ev, s));
  CK(cudaEventSynchronize(ev));
  CK(cudaMemcpyAsync(h, d, N * sizeof *h, cudaMemcpyDeviceToHost, s));
  long sum = 0;
  if (bug)
    sum = h[N - 1] >= 0; /* read before the copy is known to be done */
  CK(cudaStreamSynchronize(s));
  for (int i = 0; i < N; i++)
    sum += h[i];
  printf("cu12: ok %ld (runtime %d)\n", sum - (bug ? 1 : 0), rt);
  CK(cudaFreeHost(h));
  CK(cudaFree(d));
  CK(cudaStreamDestroy(s));
  return 0;
}

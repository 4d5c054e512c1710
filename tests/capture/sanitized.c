/* sanitized.c - a CUDA program built with a sanitizer of the compiler
 * (-fsanitize=thread or address: tests/capture/local.mk builds it both
 * ways), for tests/capture/sanitized.test: the main thread, then four
 * threads at once, each allocate, copy to the device and back (one copy
 * async, then a device synchronization) and free, 50 times; with an
 * argument, the main thread alone, once (the shim's writer then reads
 * the records as the process ends).  Prints "ok" and exits 0; 1 when a
 * CUDA call fails. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>

static int rounds = 50;

static void *work(void *arg)
{
  float h[1024], *d = NULL;
  (void)arg;
  for (int i = 0; i < 1024; i++)
    h[i] = (float)i;
  for (int r = 0; r < rounds; r++) {
    if (cudaMalloc((void **)&d, sizeof h) != cudaSuccess ||
        cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, 0) != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess || cudaFree(d) != cudaSuccess)
      return (void *)1;
  }
  return NULL;
}

int main(int argc, char **argv)
{
  (void)argv;
  int threads = argc > 1 ? 0 : 4;
  if (argc > 1)
    rounds = 1;
  pthread_t t[4];
  void *failed = work(NULL);
  for (int i = 0; i < threads; i++)
    if (pthread_create(&t[i], NULL, work, NULL))
      return 1;
  for (int i = 0; i < threads; i++) {
    void *r;
    pthread_join(t[i], &r);
    failed = r ? r : failed;
  }
  puts(failed ? "failed" : "ok");
  return failed != NULL;
}

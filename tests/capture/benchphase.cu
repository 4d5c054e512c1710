// benchphase.cu - a benchmark's phases (shim/benchphase.c): five copies of
// distinct sizes, the first in ON, the second in FLOOR, the third and
// fourth in OFF (asked for twice), the fifth in ON again, each phase chosen through cudalens_bench_phase()
// found with dlsym(RTLD_DEFAULT), as bench/torch_train.py finds it.  Prints
// what each switch returned ("none" when the shim is not loaded), then the
// rotation's first six phases (cudalens_bench_phase(-1)).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>

int main()
{
  int (*phase)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "cudalens_bench_phase");
  static char host[4096];
  void *dev = NULL;
  if (cudaMalloc(&dev, sizeof host) != cudaSuccess)
    return 1;
  const int order[] = {2, 1, 0, 0, 2};
  for (int i = 0; i < 5; i++) {
    if (phase)
      printf("phase %d: %d\n", order[i], phase(order[i]));
    else
      printf("phase %d: none\n", order[i]);
    if (cudaMemcpy(dev, host, 1001 + i, cudaMemcpyHostToDevice) != cudaSuccess)
      return 1;
  }
  printf("rotation:");
  for (int i = 0; i < 6; i++)
    printf(" %d", phase ? phase(-1) : -2);
  printf("\n");
  if (phase)
    phase(2);
  cudaFree(dev);
  return 0;
}

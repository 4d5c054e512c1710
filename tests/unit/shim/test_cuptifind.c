/* test_cuptifind.c - where the shim looks for CUPTI (cl_cupti_candidates)
 * and how it recognizes CUDA libraries and the runtime's major version
 * (cl_cuda_lib_kind, cl_cuda_runtime_major): the toolkit's layout, the pip
 * wheels' (nvidia/cuda_runtime/lib + nvidia/cuda_cupti/lib for CUDA 12,
 * nvidia/cu13/lib for CUDA 13), a runtime reached through a link,
 * CUDA_HOME and CUDA_PATH, the loader's path, the build's directory. */
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "shim/cudaload.h"
#include "shim/cupti.h"
#include "../unit.h"

static char out[16][4096];

int main(void)
{
  int n = cl_cupti_candidates("/s/nvidia/cuda_runtime/lib/libcudart.so.12", 12,
                              "/opt/cuda", NULL, out, 16);
  CHECK(n == 7);
  CHECK_STR(out[0], "/s/nvidia/cuda_runtime/lib/libcupti.so.12");
  CHECK_STR(out[1], "/s/nvidia/cuda_runtime/lib/../../cuda_cupti/lib/libcupti.so.12");
  CHECK_STR(out[2], "/s/nvidia/cuda_runtime/lib/../extras/CUPTI/lib64/libcupti.so.12");
  CHECK_STR(out[3], "/opt/cuda/lib64/libcupti.so.12");
  CHECK_STR(out[4], "/opt/cuda/extras/CUPTI/lib64/libcupti.so.12");
  CHECK_STR(out[5], "/opt/cuda/lib/libcupti.so.12");
  CHECK_STR(out[6], "libcupti.so.12"); /* no build directory for 12 */

  n = cl_cupti_candidates("/s/nvidia/cu13/lib/libcudart.so.13", 13, NULL,
                          "/p", out, 16);
  CHECK(n == 8);
  CHECK_STR(out[0], "/s/nvidia/cu13/lib/libcupti.so.13");
  CHECK_STR(out[3], "/p/lib64/libcupti.so.13");
  CHECK_STR(out[6], "libcupti.so.13");
  CHECK_STR(out[7], CL_CUPTI_LIBDIR "/libcupti.so.13");

  /* no shared runtime: the environment, the loader, the build */
  n = cl_cupti_candidates("", 13, NULL, NULL, out, 16);
  CHECK(n == 2);
  CHECK_STR(out[0], "libcupti.so.13");

  /* a runtime reached through a link: its directory, then the target's */
  char dir[] = "/tmp/cuptifindXXXXXX", a[PATH_MAX], b[PATH_MAX], l[PATH_MAX];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(a, sizeof a, "%s/real", dir);
  snprintf(b, sizeof b, "%s/real/libcudart.so.12.8.90", dir);
  snprintf(l, sizeof l, "%s/libcudart.so", dir);
  CHECK(mkdir(a, 0700) == 0);
  FILE *f = fopen(b, "w");
  CHECK(f != NULL);
  if (f)
    fclose(f);
  CHECK(symlink(b, l) == 0);
  CHECK(cl_cuda_runtime_major(l) == 12);
  n = cl_cupti_candidates(l, 12, NULL, NULL, out, 16);
  CHECK(n == 7);
  char want[PATH_MAX];
  snprintf(want, sizeof want, "%s/real/libcupti.so.12", dir);
  CHECK_STR(out[3], want);
  unlink(l);
  unlink(b);
  rmdir(a);
  rmdir(dir);

  CHECK(cl_cuda_lib_kind("/usr/lib/x86_64-linux-gnu/libcuda.so.1") == 1);
  CHECK(cl_cuda_lib_kind("/x/libcudart.so.13") == 2);
  CHECK(cl_cuda_lib_kind("/x/libcudart-9335f6a2.so.12") == 2);
  CHECK(cl_cuda_lib_kind("/x/libcudart_static.a") == 0);
  CHECK(cl_cuda_lib_kind("/x/libcudadevrt.so") == 0);
  CHECK(cl_cuda_lib_kind("/x/libcudalens.so") == 0);
  CHECK(cl_cuda_runtime_major("/x/libcudart.so.13") == 13);
  CHECK(cl_cuda_runtime_major("/x/libcudart-9335f6a2.so.12") == 12);
  CHECK(cl_cuda_runtime_major("/nonexistent/libcudart.so") == 0);
  UNIT_DONE();
}

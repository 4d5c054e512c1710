// dlopen_nccl.cu - BUG, with NCCL loaded late: the program starts CUDA,
// then dlopen()s a library linked to NCCL (nccl_plugin.cpp, beside the
// program) whose all-reduce on s1 writes the buffer a kernel on s2 then
// reads without waiting.  The shim must see NCCL loaded after it started.
// rule: COLLECTIVE
#include <dlfcn.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = dalloc();
    char self[PATH_MAX], path[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    *strrchr(self, '/') = 0;
    std::snprintf(path, sizeof path, "%s/libnccl_plugin.so", self);
    void *h = dlopen(path, RTLD_NOW);
    if (!h) {
        std::fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    typedef int (*fn_t)(float *, int, cudaStream_t);
    fn_t allreduce = (fn_t)dlsym(h, "plugin_allreduce");
    if (!allreduce || allreduce(d, N, s1))
        return 1;
    read_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("dlopen_nccl: done\n");
    return 0;
}

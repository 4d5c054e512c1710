// no_nccl.cu - a CUDA program without NCCL: under the shim it must see no
// NCCL symbol (the shim exports none) and behave as without it.
// rule: SYNC_DEVICE
#include <dlfcn.h>
#include "races.h"

int main()
{
    float *d = dalloc();
    write_k<<<GRID, 0, 0>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    const char *names[] = {"ncclAllReduce", "ncclGroupStart", "ncclCommInitRank"};
    for (const char *name : names)
        std::printf("%s: %s\n", name, dlsym(RTLD_DEFAULT, name) ? "found" : "absent");
    std::printf("no_nccl: done\n");
    return 0;
}

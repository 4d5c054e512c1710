// pageable_masked.cu - correct today, fragile: the result is copied to
// pageable memory with cudaMemcpyAsync, which blocks the host until the
// copy is done, and only that orders the later overwrite on s2.  Pinning
// the host buffer (the usual advice) makes the copy asynchronous and the
// overwrite races with the kernel and the copy (masked-race).
// rule: ASYNC_DTOH_PAGEABLE
#include <cstdlib>
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *h = (float *)std::malloc(N * sizeof(float));
    float *d = dalloc();
    write_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaMemsetAsync(d, 0, N * sizeof(float), s2)); // expect: masked-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::free(h);
    std::printf("pageable_masked: done\n");
    return 0;
}

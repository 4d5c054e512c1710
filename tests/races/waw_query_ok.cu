// waw_query_ok.cu - CORRECT twin of waw_memset: the host polls s1 with
// cudaStreamQuery until it reports success before the second memset.
// rule: QUERY_STREAM MEMSET_ASYNC
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = dalloc();
    CHECK(cudaMemsetAsync(d, 0, N * sizeof(float), s1));
    cudaError_t q;
    while ((q = cudaStreamQuery(s1)) == cudaErrorNotReady)
        ;
    CHECK(q);
    CHECK(cudaMemsetAsync(d, 0xff, N * sizeof(float), s2));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("waw_query_ok: done\n");
    return 0;
}

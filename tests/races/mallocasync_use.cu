// mallocasync_use.cu - BUG: memory from cudaMallocAsync on s1 is used on s2
// without s2 waiting for the allocation.
// rule: ALLOC
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *d = nullptr;
    CHECK(cudaMallocAsync(&d, N * sizeof(float), s1));
    write_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaFreeAsync(d, s1));
    CHECK(cudaDeviceSynchronize());
    std::printf("mallocasync_use: done\n");
    return 0;
}

// pageable_async_h2d.cu - BUG: cudaMemcpyAsync from pageable memory (a
// std::vector) to the device on one non-blocking stream, and a kernel on
// another that reads the destination: "the function might be synchronous
// with respect to host" is no promise, and the copy stays work of its
// stream, which the second stream does not wait for.
// rule: ASYNC_HTOD_PAGEABLE
#include <vector>
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    std::vector<float> h(N, 1.0f);
    float *d = dalloc();
    CHECK(cudaMemcpyAsync(d, h.data(), N * sizeof(float), cudaMemcpyHostToDevice, s1));
    read_k<<<GRID, 0, s2>>>(d, N); // expect: stream-race
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("pageable_async_h2d: done\n");
    return 0;
}

// newrace.cu - two versions of one program, for tests/capture/newrace.test
// (suppressions that must not hide new bugs): version 1 (no argument) has
// one stream-race in main; version 2 (argument "v2", the program after a
// change) has the same race and a new one in the same function.  The
// correct form of each is tests/races/h2d_event_ok.cu.
#include <cstring>

#include "races.h"

int main(int argc, char **argv)
{
    bool v2 = argc > 1 && std::strcmp(argv[1], "v2") == 0;
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    float *h = nullptr;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    float *a = dalloc(), *b = dalloc();
    CHECK(cudaMemcpyAsync(a, h, N * sizeof(float), cudaMemcpyHostToDevice, s1));
    read_k<<<GRID, 0, s2>>>(a, N); // expect: stream-race
    if (v2) {
        CHECK(cudaMemcpyAsync(b, h, N * sizeof(float), cudaMemcpyHostToDevice, s1));
        read_k<<<GRID, 0, s2>>>(b, N); // expect: stream-race (version 2)
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFreeHost(h));
    std::printf("newrace: done\n");
    return 0;
}

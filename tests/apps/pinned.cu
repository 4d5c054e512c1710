// pinned.cu - sample app: cudaMallocHost, cudaHostAlloc, cudaHostRegister of
// malloc'd memory, async copies from pinned and from pageable memory,
// cudaMemsetAsync, cudaFreeHost, cudaHostUnregister.
#include "common.h"
#include <cstring>

int main()
{
    const size_t n = 1 << 20;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    char *d = nullptr, *pinned = nullptr, *portable = nullptr;
    CHECK(cudaMalloc(&d, n));
    CHECK(cudaMallocHost(&pinned, n));
    CHECK(cudaHostAlloc(&portable, n, cudaHostAllocPortable));
    char *pageable = (char *)std::malloc(n);
    char *registered = (char *)std::malloc(n);
    CHECK(cudaHostRegister(registered, n, cudaHostRegisterDefault));

    std::memset(pinned, 1, n);
    std::memset(pageable, 2, n);
    CHECK(cudaMemcpyAsync(d, pinned, n, cudaMemcpyHostToDevice, s));      // PINNED -> DEVICE
    CHECK(cudaMemcpyAsync(portable, d, n, cudaMemcpyDeviceToHost, s));    // DEVICE -> PINNED
    CHECK(cudaMemcpyAsync(d, pageable, n, cudaMemcpyHostToDevice, s));    // PAGEABLE -> DEVICE
    CHECK(cudaMemcpyAsync(registered, d, n, cudaMemcpyDeviceToHost, s));  // DEVICE -> registered
    CHECK(cudaMemsetAsync(d, 7, n, s));
    CHECK(cudaMemcpyAsync(pageable, d, n, cudaMemcpyDeviceToHost, s));    // DEVICE -> PAGEABLE
    CHECK(cudaStreamSynchronize(s));
    EXPECT(portable[100] == 1 && registered[100] == 2 && pageable[100] == 7);

    CHECK(cudaHostUnregister(registered));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFreeHost(portable));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    std::free(pageable);
    std::free(registered);
    std::printf("pinned: ok\n");
    return 0;
}

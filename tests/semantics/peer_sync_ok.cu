// peer_sync_ok.cu - correct: cudaMemcpyPeer "is serialized with respect to
// all pending and future asynchronous work in to the current device,
// srcDevice, and dstDevice" (its entry in the Runtime API), so it comes
// after the write on one non-blocking stream and before the read on
// another.  With one device, source and destination are on device 0.
// rule: SYNC_PEER
#include "races.h"

int main()
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    int peer = n > 1 ? 1 : 0;
    cudaStream_t s1 = nonblocking_stream();
    float *src = dalloc();
    write_k<<<GRID, 0, s1>>>(src, N);
    CHECK(cudaSetDevice(peer));
    cudaStream_t s2 = nonblocking_stream();
    float *dst = dalloc();
    CHECK(cudaMemcpyPeer(dst, peer, src, 0, N * sizeof(float)));
    read_k<<<GRID, 0, s2>>>(dst, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(dst));
    CHECK(cudaSetDevice(0));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(src));
    std::printf("peer_sync_ok: done\n");
    return 0;
}

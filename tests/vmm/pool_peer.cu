// pool_peer.cu - BUG: memory of device 0's default pool used by a kernel on
// device 1.  Peer access is enabled, but memory pools do not follow it:
// only the pool's access descriptors (cudaMemPoolSetAccess) let device 1 in.
#include "vmm.h"

int main()
{
    if (device_count() < 2) {
        std::printf("pool_peer: needs 2 devices\n");
        return 0;
    }
    cudaStream_t s0, s1;
    cudaEvent_t ready;
    CHECK(cudaSetDevice(1));
    CHECK(cudaDeviceEnablePeerAccess(0, 0));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    float *d = nullptr;
    CHECK(cudaMallocAsync((void **)&d, N * sizeof(float), s0));
    write_k<<<GRID, 0, s0>>>(d, N);
    CHECK(cudaEventRecord(ready, s0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(s1, ready, 0));
    read_k<<<GRID, 0, s1>>>(d, N); // expect: cross-device-access
    // on a GPU the read faults, and the context is lost: no cleanup
    cudaError_t e = cudaStreamSynchronize(s1);
    std::printf("pool_peer: done (%s)\n", cudaGetErrorString(e));
    return 0;
}

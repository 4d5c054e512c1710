// pool_peer_ok.cu - correct twin of pool_peer.cu, as NVIDIA's
// streamOrderedAllocationP2P sample does it: device 0's default pool grants
// device 1 read-write access (cudaMemPoolSetAccess), without peer access;
// memory from another pool of device 0 (cudaMallocFromPoolAsync) is used
// on device 0 only.
#include "vmm.h"

int main()
{
    if (device_count() < 2) {
        std::printf("pool_peer_ok: needs 2 devices\n");
        return 0;
    }
    cudaStream_t s0, s1;
    cudaEvent_t ready;
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    cudaMemAccessDesc desc = {};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(pool, &desc, 1));
    float *d = nullptr, *e = nullptr;
    CHECK(cudaMallocAsync((void **)&d, N * sizeof(float), s0));
    CHECK(cudaMallocFromPoolAsync((void **)&e, N * sizeof(float), pool, s0));
    write_k<<<GRID, 0, s0>>>(d, N);
    write_k<<<GRID, 0, s0>>>(e, N);
    CHECK(cudaEventRecord(ready, s0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(s1, ready, 0));
    read_k<<<GRID, 0, s1>>>(d, N);
    read_k<<<GRID, 0, s1>>>(e, N);
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaFreeAsync(d, s0));
    CHECK(cudaFreeAsync(e, s0));
    CHECK(cudaStreamSynchronize(s0));
    std::printf("pool_peer_ok: done\n");
    return 0;
}

// multidev.cu - sample app: cudaGetDeviceCount, cudaSetDevice per device,
// an allocation and a kernel on each, cudaDeviceEnablePeerAccess,
// cudaMemcpyPeer; then, on a stream of device 0, cudaMemcpyPeerAsync from
// device 1, copies between the devices' memory by cudaMemcpyAsync (kinds
// Default and DeviceToDevice: unified addressing makes them peer copies)
// and (with peer access) a kernel of device 0 writing device 1's memory.  With one device it does the single-device part.
#include "common.h"
#include <vector>

__global__ void iota(int *x, int base, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = base + i;
}

int main()
{
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    const int n = 256;
    std::vector<int *> buf(count);
    for (int dev = 0; dev < count; dev++) {
        cudaDeviceProp prop;
        CHECK(cudaSetDevice(dev));
        CHECK(cudaGetDeviceProperties(&prop, dev));
        CHECK(cudaMalloc(&buf[dev], n * sizeof(int)));
        CHECK(cudaMemset(buf[dev], 0, n * sizeof(int)));
        iota<<<1, n>>>(buf[dev], 1000 * dev, n);
        CHECK(cudaGetLastError());
        std::printf("multidev: device %d: %s (cc %d.%d)\n", dev, prop.name, prop.major, prop.minor);
    }
    if (count >= 2) {
        int can = 0;
        CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
        CHECK(cudaSetDevice(0));
        if (can)
            CHECK(cudaDeviceEnablePeerAccess(1, 0));
        CHECK(cudaMemcpyPeer(buf[0], 0, buf[1], 1, n * sizeof(int)));
        int h[2];
        CHECK(cudaMemcpy(h, buf[0], sizeof h, cudaMemcpyDeviceToHost));
        std::printf("multidev: peer copy ok (peer access %s)\n", can ? "on" : "off");
        cudaStream_t s;
        CHECK(cudaStreamCreate(&s));
        CHECK(cudaMemcpyPeerAsync(buf[0], 0, buf[1], 1, n * sizeof(int), s));
        CHECK(cudaMemcpyAsync(buf[0], buf[1], n * sizeof(int), cudaMemcpyDefault, s));
        CHECK(cudaMemcpyAsync(buf[1], buf[0], n * sizeof(int), cudaMemcpyDeviceToDevice, s));
        if (can)
            iota<<<1, n, 0, s>>>(buf[1], 7, n); // device 0 writes device 1's memory
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaStreamDestroy(s));
    }
    for (int dev = 0; dev < count; dev++) {
        CHECK(cudaSetDevice(dev));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaFree(buf[dev]));
    }
    std::printf("multidev: ok (%d devices)\n", count);
    return 0;
}

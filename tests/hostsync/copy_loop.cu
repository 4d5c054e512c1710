// copy_loop.cu - issue 25: the host check's cost per copy, and that its
// findings stay the same.  ROUNDS (argv[1], default 256) rounds of an async
// host-to-device copy from a pinned buffer and a device-to-host copy into
// another, alternating between two streams (bench/copy_bound.cu's loop: 64
// KiB, 1 MiB every eighth round), both streams synchronized every 16
// rounds; after each synchronization the host reads every destination and
// writes every source (legal: the copies are done).  Then, on buffers the
// loop used, a protection made stricter and one made weaker (a buffer read
// then written by copies on one stream; one written on a stream and read
// on another, whose writer alone is synchronized), a read of a destination
// before its stream's synchronization (a bug), a read of a source while
// only its host-to-device copy is in flight (legal: the device only reads
// it), and a write of that source (a bug).  copy_loop.test counts the shim's mprotect calls.
// rule: SYNC_STREAM SYNC_DEVICE
#include "common.h"
#include <cstring>

static const size_t kSmall = 64 << 10, kLarge = 1 << 20;

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? std::atol(argv[1]) : 256;
    cudaStream_t s[2];
    unsigned char *in[2], *out[2], *dev[2];
    for (int i = 0; i < 2; i++) {
        CHECK(cudaStreamCreate(&s[i]));
        CHECK(cudaMallocHost((void **)&in[i], kLarge));
        CHECK(cudaMallocHost((void **)&out[i], kLarge));
        CHECK(cudaMalloc((void **)&dev[i], kLarge));
        std::memset(in[i], 1 + i, kLarge);
    }
    unsigned long sum = 0;
    for (long r = 0; r < rounds; r++) {
        int i = (int)(r & 1);
        size_t size = r % 8 == 7 ? kLarge : kSmall;
        CHECK(cudaMemcpyAsync(dev[i], in[i], size, cudaMemcpyHostToDevice, s[i]));
        CHECK(cudaMemcpyAsync(out[i], dev[i], size, cudaMemcpyDeviceToHost, s[i]));
        if (r % 16 == 15) {
            CHECK(cudaStreamSynchronize(s[0]));
            CHECK(cudaStreamSynchronize(s[1]));
            for (int k = 0; k < 2; k++)
                for (size_t b = 0; b < kLarge; b += 4096) {
                    sum += out[k][b];      // legal: synchronized
                    in[k][b] = (unsigned char)(1 + k);
                }
        }
    }
    CHECK(cudaDeviceSynchronize());

    // one buffer read by a copy, then written by another on its stream: no
    // access at all until they are done
    float *x = (float *)out[1], *y = (float *)in[0];
    CHECK(cudaMemcpyAsync(dev[0], x, kSmall, cudaMemcpyHostToDevice, s[0]));
    CHECK(cudaMemcpyAsync(x, dev[1], kSmall, cudaMemcpyDeviceToHost, s[0]));
    touch_read(x + 3); // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s[0]));
    touch_write(x + 4); // legal: synchronized
    // written by a copy on s[0], read by one on s[1]: once s[0] is
    // synchronized the host may read it, not write it
    CHECK(cudaMemcpyAsync(y, dev[0], kSmall, cudaMemcpyDeviceToHost, s[0]));
    CHECK(cudaMemcpyAsync(dev[1], y, kSmall, cudaMemcpyHostToDevice, s[1]));
    CHECK(cudaStreamSynchronize(s[0]));
    touch_read(y + 5); // legal: only s[1]'s copy, which reads it, may run
    touch_write(y + 6); // expect: host-write-before-sync
    CHECK(cudaDeviceSynchronize());

    float *h = (float *)out[0], *src = (float *)in[1];
    CHECK(cudaMemcpyAsync(h, dev[0], kLarge, cudaMemcpyDeviceToHost, s[0]));
    float first = h[0]; // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s[0]));
    CHECK(cudaMemcpyAsync(dev[1], src, kLarge, cudaMemcpyHostToDevice, s[1]));
    CHECK(cudaMemcpyAsync(out[0], dev[0], kLarge, cudaMemcpyDeviceToHost, s[0]));
    CHECK(cudaStreamSynchronize(s[0])); // s[1]'s copy may still read src
    float read_ok = src[0] + h[1];      // legal: the device only reads src
    touch_write(src + 1); // expect: host-write-before-sync
    CHECK(cudaStreamSynchronize(s[1]));
    std::printf("copy_loop: %ld rounds, %lu %g\n", rounds, sum, (double)(first + read_ok));
    for (int i = 0; i < 2; i++) {
        CHECK(cudaFree(dev[i]));
        CHECK(cudaFreeHost(in[i]));
        CHECK(cudaFreeHost(out[i]));
        CHECK(cudaStreamDestroy(s[i]));
    }
    return 0;
}

// syscall_access.cu - BUG: pinned memory of in-flight device-to-host copies
// handed to system calls: read(), readv() and fread() fill the destination
// before the copy is synchronized, write() sends it.  The kernel does not
// fault on the protected pages of the host check, so without care these
// calls would fail with EFAULT under cudalens; they must return what they
// return natively and be reported.  A write() of the source of an in-flight
// host-to-device copy (reading it is fine) and a read() at end of file
// (which touches nothing) are not reported.
// rule: ASYNC_OTHER
#include "common.h"
#include <cstring>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

int main()
{
    const size_t bytes = N * sizeof(float), page = 4096;
    float *d, *h;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMallocHost(&h, bytes));
    CHECK(cudaMemsetAsync(d, 0, bytes, s));
    char *c = (char *)h;
    int exe = open("/proc/self/exe", O_RDONLY);
    int out = open("syscall_access.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    FILE *fp = fopen("/proc/self/exe", "rb");
    EXPECT(exe >= 0 && out >= 0 && fp);

    CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
    ssize_t r = read(exe, c + page, 3 * page); // expect: host-write-before-sync
    CHECK(cudaStreamSynchronize(s));
    std::printf("read: %zd\n", r);

    CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
    struct iovec iov[2] = {{c + page, 100}, {c + 2 * page, 2 * page}};
    r = readv(exe, iov, 2); // expect: host-write-before-sync
    CHECK(cudaStreamSynchronize(s));
    std::printf("readv: %zd\n", r);

    CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
    size_t n = fread(c + page, 1, 8 * page, fp); // expect: host-write-before-sync
    CHECK(cudaStreamSynchronize(s));
    std::printf("fread: %zu\n", n);

    CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
    r = write(out, c + page, 2 * page); // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    std::printf("write: %zd\n", r);

    // correct: the kernel only reads the source of a host-to-device copy
    CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s));
    r = write(out, c + page, 2 * page);
    CHECK(cudaStreamSynchronize(s));
    std::printf("write of a copy's source: %zd\n", r);

    // a read at end of file transfers nothing
    lseek(exe, 0, SEEK_END);
    CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
    r = read(exe, c + page, page);
    CHECK(cudaStreamSynchronize(s));
    std::printf("read at end of file: %zd\n", r);

    std::printf("syscall_access: %g\n", checksum(h, N));
    fclose(fp);
    close(exe);
    close(out);
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

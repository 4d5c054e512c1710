// syscall_more.cu - BUG: pinned memory of in-flight device-to-host copies
// filled by system calls outside the read/write/recv/send families (issue
// 24, defect 9): recvmmsg(), getrandom(), stat(), fstat() and readlink()
// before the copy is synchronized.  Under the host check these returned
// -1/EFAULT; they must return what they return natively and be reported.
// The same calls into pinned memory after the synchronization are correct
// and stay clean.  What the unsynchronized calls wrote is printed only after
// a synchronization that orders it (on a GPU the copy may still overwrite
// it: the bug); their return values always.
// rule: ASYNC_OTHER
#include "common.h"
#include <cstring>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
    int sv[2];
    EXPECT(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
    int fd = open("/proc/self/exe", O_RDONLY);
    EXPECT(fd >= 0);

    for (int synced = 0; synced < 2; synced++) {
        EXPECT(send(sv[0], "datagram", 8, 0) == 8);
        CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
        if (synced)
            CHECK(cudaStreamSynchronize(s));
        struct iovec iov = {c + page, 64};
        struct mmsghdr m;
        std::memset(&m, 0, sizeof m);
        m.msg_hdr.msg_iov = &iov;
        m.msg_hdr.msg_iovlen = 1;
        int r;
        if (synced)
            r = recvmmsg(sv[1], &m, 1, 0, nullptr);
        else
            r = recvmmsg(sv[1], &m, 1, 0, nullptr); // expect: host-write-before-sync
        CHECK(cudaStreamSynchronize(s));
        std::printf("recvmmsg: %d, %u bytes, %.8s\n", r, m.msg_len, synced ? c + page : "-");

        CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
        if (synced)
            CHECK(cudaStreamSynchronize(s));
        ssize_t n;
        if (synced)
            n = getrandom(c + page, 256, 0);
        else
            n = getrandom(c + page, 256, 0); // expect: host-write-before-sync
        CHECK(cudaStreamSynchronize(s));
        std::printf("getrandom: %zd\n", n);

        CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
        if (synced)
            CHECK(cudaStreamSynchronize(s));
        struct stat *st = (struct stat *)(c + page);
        if (synced)
            r = stat("/proc/self/exe", st);
        else
            r = stat("/proc/self/exe", st); // expect: host-write-before-sync
        CHECK(cudaStreamSynchronize(s));
        std::printf("stat: %d, a regular file: %d\n", r, synced ? r == 0 && S_ISREG(st->st_mode) : -1);

        CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
        if (synced)
            CHECK(cudaStreamSynchronize(s));
        if (synced)
            r = fstat(fd, st);
        else
            r = fstat(fd, st); // expect: host-write-before-sync
        CHECK(cudaStreamSynchronize(s));
        std::printf("fstat: %d, a regular file: %d\n", r, synced ? r == 0 && S_ISREG(st->st_mode) : -1);

        CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
        if (synced)
            CHECK(cudaStreamSynchronize(s));
        if (synced)
            n = readlink("/proc/self/cwd", c + page, page);
        else
            n = readlink("/proc/self/cwd", c + page, page); // expect: host-write-before-sync
        CHECK(cudaStreamSynchronize(s));
        std::printf("readlink: %d\n", n > 0);
    }
    close(fd);
    close(sv[0]);
    close(sv[1]);
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}

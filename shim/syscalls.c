/* syscalls.c - the C library functions that have the kernel read or fill the
 * program's memory, wrapped so that the host-access check never changes what
 * they return.  The kernel does not fault on a page the check protects: the
 * call would fail with EFAULT (and a datagram could be lost).  While copies
 * are in flight, the protection over a call's buffers is lifted for the call
 * and what it transferred is reported as a host access (hostguard.c);
 * otherwise a wrapper costs one atomic load.  fread() and fwrite() are
 * wrapped too: the C library moves large blocks with internal read and write
 * calls that no wrapper sees.  Besides the read, write, recv and send
 * families: recvmmsg and sendmmsg, getrandom, the stat family, readlink,
 * getdents64, poll and epoll_wait (issue 24, defect 9).  Other ways into
 * the kernel (syscall(2), io_uring, ioctl) are not covered. */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <dirent.h>
#include <unistd.h>

#include "hostguard.h"
#include "shim.h"

/* (macros in <stdio.h> when optimizing) */
#undef fread_unlocked
#undef fwrite_unlocked

/* the C library's checking variants (_FORTIFY_SOURCE), not declared here */
ssize_t __read_chk(int, void *, size_t, size_t);
ssize_t __pread_chk(int, void *, size_t, off_t, size_t);
ssize_t __pread64_chk(int, void *, size_t, off64_t, size_t);
ssize_t __recv_chk(int, void *, size_t, size_t, int);
ssize_t __recvfrom_chk(int, void *__restrict, size_t, size_t, int,
                       __SOCKADDR_ARG, socklen_t *__restrict);
size_t __fread_chk(void *__restrict, size_t, size_t, size_t,
                   FILE *__restrict);
size_t __fread_unlocked_chk(void *__restrict, size_t, size_t, size_t,
                            FILE *__restrict);

static inline int armed(void)
{
  return atomic_load_explicit(&cl_hostguard_armed, memory_order_relaxed) != 0;
}

/* Lift the protection over the buffers of iov (kernel_writes: the kernel
 * fills them); a token for settle(), 0 when nothing was in the way. */
static int lift(const struct iovec *iov, int iovcnt, int kernel_writes)
{
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < iovcnt; i++) {
    uint64_t a = (uint64_t)(uintptr_t)iov[i].iov_base, n = iov[i].iov_len;
    if (!n)
      continue;
    if (a < lo)
      lo = a;
    if (a + n > hi)
      hi = a + n;
  }
  return hi > lo ? cl_hostguard_lift(lo, hi - lo, kernel_writes) : 0;
}

static void settle(int token, const struct iovec *iov, int iovcnt,
                   int64_t done)
{
  if (!token)
    return;
  int saved = errno;
  cl_hostguard_settle(token, iov, iovcnt, done > 0 ? (uint64_t)done : 0);
  errno = saved;
}

/* n items of size bytes, or as many as fit (a call that big fails anyway) */
static inline size_t bytes_of(size_t n, size_t size)
{
  return n <= SIZE_MAX / size ? n * size : SIZE_MAX;
}

/* CALL moves at most N items of SIZE bytes at BUF and returns how many it
 * moved (or -1) */
#define ONE_BUFFER(kernel_writes, buf, n, size, call)                          \
  do {                                                                         \
    if (!armed())                                                              \
      return call;                                                             \
    struct iovec iov_ = {(void *)(buf), bytes_of((n), (size))};                \
    int token_ = lift(&iov_, 1, (kernel_writes));                              \
    __typeof__(call) r_ = call;                                                \
    settle(token_, &iov_, 1, (int64_t)r_ * (int64_t)(size));                   \
    return r_;                                                                 \
  } while (0)

/* CALL moves data between the buffers of IOV and the kernel */
#define IOVEC(kernel_writes, iov, iovcnt, call)                                \
  do {                                                                         \
    if (!armed() || !(iov) || (iovcnt) <= 0)                                   \
      return call;                                                             \
    int token_ = lift((iov), (iovcnt), (kernel_writes));                       \
    ssize_t r_ = call;                                                         \
    settle(token_, (iov), (iovcnt), r_);                                       \
    return r_;                                                                 \
  } while (0)

/* CALL fills LEN bytes at BUF (a structure) when it returns 0 */
#define STRUCT_OUT(buf, len, call)                                             \
  do {                                                                         \
    if (!armed())                                                              \
      return call;                                                             \
    struct iovec iov_ = {(void *)(buf), (len)};                                \
    int token_ = lift(&iov_, 1, 1);                                            \
    int r_ = call;                                                             \
    settle(token_, &iov_, 1, r_ == 0 ? (int64_t)(len) : 0);                    \
    return r_;                                                                 \
  } while (0)

/* The buffers of n messages (their iovecs, names and controls, and the
 * array, whose msg_len the kernel fills) as one range */
static struct iovec mmsg_span(const struct mmsghdr *v, unsigned n)
{
  uint64_t lo = (uint64_t)(uintptr_t)v, hi = lo + (uint64_t)n * sizeof *v;
  for (unsigned i = 0; i < n; i++) {
    const struct msghdr *m = &v[i].msg_hdr;
    const struct iovec parts[] = {{m->msg_name, m->msg_namelen},
                                  {m->msg_control, m->msg_controllen},
                                  {m->msg_iov, m->msg_iovlen * sizeof *m->msg_iov}};
    for (unsigned k = 0; k < 3; k++) {
      uint64_t a = (uint64_t)(uintptr_t)parts[k].iov_base;
      if (a && parts[k].iov_len) {
        lo = a < lo ? a : lo;
        hi = a + parts[k].iov_len > hi ? a + parts[k].iov_len : hi;
      }
    }
    for (size_t k = 0; m->msg_iov && k < m->msg_iovlen; k++) {
      uint64_t a = (uint64_t)(uintptr_t)m->msg_iov[k].iov_base;
      uint64_t len = m->msg_iov[k].iov_len;
      if (a && len) {
        lo = a < lo ? a : lo;
        hi = a + len > hi ? a + len : hi;
      }
    }
  }
  return (struct iovec){(void *)(uintptr_t)lo, (size_t)(hi - lo)};
}

/* ---- the kernel fills the buffer ------------------------------------------- */
CL_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(read)(fd, buf, n));
}
CL_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(__read_chk)(fd, buf, n, buflen));
}
CL_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(pread)(fd, buf, n, off));
}
CL_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(pread64)(fd, buf, n, off));
}
CL_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off,
                           size_t buflen)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(__pread_chk)(fd, buf, n, off, buflen));
}
CL_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off,
                             size_t buflen)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(__pread64_chk)(fd, buf, n, off, buflen));
}
CL_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(recv)(fd, buf, n, flags));
}
CL_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen,
                          int flags)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(__recv_chk)(fd, buf, n, buflen, flags));
}
CL_EXPORT ssize_t recvfrom(int fd, void *__restrict buf, size_t n, int flags,
                        __SOCKADDR_ARG from, socklen_t *__restrict fromlen)
{
  ONE_BUFFER(1, buf, n, 1,
             CL_REAL(recvfrom)(fd, buf, n, flags, from, fromlen));
}
CL_EXPORT ssize_t __recvfrom_chk(int fd, void *__restrict buf, size_t n,
                              size_t buflen, int flags, __SOCKADDR_ARG from,
                              socklen_t *__restrict fromlen)
{
  ONE_BUFFER(1, buf, n, 1,
             CL_REAL(__recvfrom_chk)(fd, buf, n, buflen, flags, from,
                                     fromlen));
}
CL_EXPORT size_t fread(void *__restrict buf, size_t size, size_t n,
                    FILE *__restrict fp)
{
  ONE_BUFFER(1, buf, n, size, CL_REAL(fread)(buf, size, n, fp));
}
CL_EXPORT size_t fread_unlocked(void *__restrict buf, size_t size, size_t n,
                             FILE *__restrict fp)
{
  ONE_BUFFER(1, buf, n, size, CL_REAL(fread_unlocked)(buf, size, n, fp));
}
CL_EXPORT size_t __fread_chk(void *__restrict buf, size_t buflen, size_t size,
                          size_t n, FILE *__restrict fp)
{
  ONE_BUFFER(1, buf, n, size, CL_REAL(__fread_chk)(buf, buflen, size, n, fp));
}
CL_EXPORT size_t __fread_unlocked_chk(void *__restrict buf, size_t buflen,
                                   size_t size, size_t n, FILE *__restrict fp)
{
  ONE_BUFFER(1, buf, n, size,
             CL_REAL(__fread_unlocked_chk)(buf, buflen, size, n, fp));
}
CL_EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
  IOVEC(1, iov, iovcnt, CL_REAL(readv)(fd, iov, iovcnt));
}
CL_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
  IOVEC(1, iov, iovcnt, CL_REAL(preadv)(fd, iov, iovcnt, off));
}
CL_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int iovcnt,
                        off64_t off)
{
  IOVEC(1, iov, iovcnt, CL_REAL(preadv64)(fd, iov, iovcnt, off));
}
CL_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
  IOVEC(1, msg ? msg->msg_iov : NULL, msg ? (int)msg->msg_iovlen : 0,
        CL_REAL(recvmsg)(fd, msg, flags));
}

CL_EXPORT int recvmmsg(int fd, struct mmsghdr *v, unsigned n, int flags,
                    struct timespec *timeout)
{
  if (!armed() || !v || !n)
    return CL_REAL(recvmmsg)(fd, v, n, flags, timeout);
  /* the messages' memory, read first with signals free to come (a fault
   * on it is an access of the program's own) */
  struct iovec span = mmsg_span(v, n);
  int token = lift(&span, 1, 1);
  int r = CL_REAL(recvmmsg)(fd, v, n, flags, timeout);
  settle(token, &span, 1, r > 0 ? (int64_t)span.iov_len : 0);
  return r;
}
CL_EXPORT ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(getrandom)(buf, n, flags));
}
CL_EXPORT ssize_t readlink(const char *__restrict path, char *__restrict buf,
                        size_t n)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(readlink)(path, buf, n));
}
CL_EXPORT ssize_t readlinkat(int dirfd, const char *__restrict path,
                          char *__restrict buf, size_t n)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(readlinkat)(dirfd, path, buf, n));
}
CL_EXPORT ssize_t getdents64(int fd, void *buf, size_t n)
{
  ONE_BUFFER(1, buf, n, 1, CL_REAL(getdents64)(fd, buf, n));
}
CL_EXPORT int stat(const char *__restrict path, struct stat *__restrict st)
{
  STRUCT_OUT(st, sizeof *st, CL_REAL(stat)(path, st));
}
CL_EXPORT int lstat(const char *__restrict path, struct stat *__restrict st)
{
  STRUCT_OUT(st, sizeof *st, CL_REAL(lstat)(path, st));
}
CL_EXPORT int fstat(int fd, struct stat *st)
{
  STRUCT_OUT(st, sizeof *st, CL_REAL(fstat)(fd, st));
}
CL_EXPORT int fstatat(int dirfd, const char *__restrict path,
                   struct stat *__restrict st, int flags)
{
  STRUCT_OUT(st, sizeof *st, CL_REAL(fstatat)(dirfd, path, st, flags));
}
CL_EXPORT int stat64(const char *__restrict path, struct stat64 *__restrict st)
{
  STRUCT_OUT(st, sizeof *st, CL_REAL(stat64)(path, st));
}
CL_EXPORT int lstat64(const char *__restrict path, struct stat64 *__restrict st)
{
  STRUCT_OUT(st, sizeof *st, CL_REAL(lstat64)(path, st));
}
CL_EXPORT int fstat64(int fd, struct stat64 *st)
{
  STRUCT_OUT(st, sizeof *st, CL_REAL(fstat64)(fd, st));
}
CL_EXPORT int fstatat64(int dirfd, const char *__restrict path,
                     struct stat64 *__restrict st, int flags)
{
  STRUCT_OUT(st, sizeof *st, CL_REAL(fstatat64)(dirfd, path, st, flags));
}
CL_EXPORT int statx(int dirfd, const char *__restrict path, int flags,
                 unsigned mask, struct statx *__restrict st)
{
  STRUCT_OUT(st, sizeof *st, CL_REAL(statx)(dirfd, path, flags, mask, st));
}
CL_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
  if (!armed() || !fds || !n)
    return CL_REAL(poll)(fds, n, timeout);
  /* the kernel reads the array and fills its revents */
  struct iovec iov = {fds, bytes_of(n, sizeof *fds)};
  int token = lift(&iov, 1, 1);
  int r = CL_REAL(poll)(fds, n, timeout);
  settle(token, &iov, 1, r >= 0 ? (int64_t)iov.iov_len : 0);
  return r;
}
CL_EXPORT int epoll_wait(int fd, struct epoll_event *ev, int n, int timeout)
{
  ONE_BUFFER(1, ev, n > 0 ? (size_t)n : 0, sizeof *ev,
             CL_REAL(epoll_wait)(fd, ev, n, timeout));
}

/* ---- the kernel reads the buffer ------------------------------------------- */
CL_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
  ONE_BUFFER(0, buf, n, 1, CL_REAL(write)(fd, buf, n));
}
CL_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
  ONE_BUFFER(0, buf, n, 1, CL_REAL(pwrite)(fd, buf, n, off));
}
CL_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
  ONE_BUFFER(0, buf, n, 1, CL_REAL(pwrite64)(fd, buf, n, off));
}
CL_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
  ONE_BUFFER(0, buf, n, 1, CL_REAL(send)(fd, buf, n, flags));
}
CL_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
                      __CONST_SOCKADDR_ARG to, socklen_t tolen)
{
  ONE_BUFFER(0, buf, n, 1, CL_REAL(sendto)(fd, buf, n, flags, to, tolen));
}
CL_EXPORT size_t fwrite(const void *__restrict buf, size_t size, size_t n,
                     FILE *__restrict fp)
{
  ONE_BUFFER(0, buf, n, size, CL_REAL(fwrite)(buf, size, n, fp));
}
CL_EXPORT size_t fwrite_unlocked(const void *__restrict buf, size_t size,
                              size_t n, FILE *__restrict fp)
{
  ONE_BUFFER(0, buf, n, size, CL_REAL(fwrite_unlocked)(buf, size, n, fp));
}
CL_EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
  IOVEC(0, iov, iovcnt, CL_REAL(writev)(fd, iov, iovcnt));
}
CL_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
  IOVEC(0, iov, iovcnt, CL_REAL(pwritev)(fd, iov, iovcnt, off));
}
CL_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int iovcnt,
                         off64_t off)
{
  IOVEC(0, iov, iovcnt, CL_REAL(pwritev64)(fd, iov, iovcnt, off));
}
CL_EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned n, int flags)
{
  if (!armed() || !v || !n)
    return CL_REAL(sendmmsg)(fd, v, n, flags);
  struct iovec span = mmsg_span(v, n);
  int token = lift(&span, 1, 1); /* msg_len is filled */
  int r = CL_REAL(sendmmsg)(fd, v, n, flags);
  settle(token, &span, 1, r > 0 ? (int64_t)span.iov_len : 0);
  return r;
}
CL_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
  IOVEC(0, msg ? msg->msg_iov : NULL, msg ? (int)msg->msg_iovlen : 0,
        CL_REAL(sendmsg)(fd, msg, flags));
}

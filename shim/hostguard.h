/* hostguard.h - host accesses to memory of in-flight copies and kernels
 * (hostguard.c), and the system calls that reach it (syscalls.c). */
#ifndef CUDALENS_SHIM_HOSTGUARD_H
#define CUDALENS_SHIM_HOSTGUARD_H

#include <sys/uio.h>

#include "shim.h"

struct cl_host_access {
  uint64_t seq, address, copy_seq;
  const char *kind;      /* "read", "write" or "free" (string literals) */
  uint32_t tid, pystack;
  uint8_t nframes;
  uint64_t frames[CL_MAX_FRAMES];
};

void cl_hostguard_init(void) CL_HIDDEN;
void cl_hostguard_atfork_prepare(void) CL_HIDDEN;
void cl_hostguard_atfork_parent(void) CL_HIDDEN;
void cl_hostguard_atfork_child(void) CL_HIDDEN;
void cl_hostguard_copy(uint64_t seq, uint64_t stream, uint64_t tid,
                       int32_t device, int dtoh, uint64_t host, uint64_t bytes)
    CL_HIDDEN;
/* the same, where the caller has read cl_allocmap_kind(host, bytes): KIND
 * (-1: not read) */
void cl_hostguard_copy_kind(uint64_t seq, uint64_t stream, uint64_t tid,
                            int32_t device, int dtoh, uint64_t host,
                            uint64_t bytes, int kind) CL_HIDDEN;
void cl_hostguard_kernel(uint64_t seq, uint64_t stream, uint64_t tid,
                         int32_t device, const struct cl_karg *kargs,
                         int nkargs, uint64_t const_params) CL_HIDDEN;
/* a stream created (created 1: non-blocking or not) or destroyed (0) */
void cl_hostguard_stream(uint64_t stream, int created, int nonblocking)
    CL_HIDDEN;
void cl_hostguard_sync(enum cl_op op, int32_t device, uint64_t stream,
                       uint64_t tid, uint64_t event, uint64_t seq) CL_HIDDEN;
uint64_t cl_hostguard_free(uint64_t addr) CL_HIDDEN;
void cl_hostguard_capture(int begin) CL_HIDDEN;
/* a stream is being captured into a graph (any stream) */
int cl_hostguard_capturing(void) CL_HIDDEN;
void cl_hostguard_record(const char *kind, uint64_t seq, uint64_t addr,
                         uint64_t copy_seq, const uint64_t *frames, int n,
                         uint32_t pystack) CL_HIDDEN;
void cl_hostguard_drain(void (*fn)(const struct cl_host_access *, void *),
                        void *arg, uint64_t *lost) CL_HIDDEN;
/* System calls on host memory (syscalls.c): the number of copies whose pages
 * are protected now; a call about to have the kernel read (kernel_writes 0)
 * or fill buffers within [addr, addr + len) lifts the protection over them,
 * getting a token (0: nothing was in the way), and settles it afterwards
 * with its buffers and the number of bytes transferred: copies whose pages
 * they touched are reported and released, the others protected again. */
extern _Atomic unsigned cl_hostguard_armed CL_HIDDEN;
int cl_hostguard_lift(uint64_t addr, uint64_t len, int kernel_writes)
    CL_HIDDEN;
void cl_hostguard_settle(int token, const struct iovec *iov, int iovcnt,
                         uint64_t done) CL_HIDDEN;

#endif

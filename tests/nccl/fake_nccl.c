/* fake_nccl.c - TEST DOUBLE for CI, never installed or shipped: a
 * libnccl.so.2 with NCCL's ABI (tests/nccl/nccl.h) over the simulated CUDA
 * runtime (tests/sim), so that the shim's NCCL interposition, the race
 * rules and the cross-rank check run without GPUs or NCCL.
 *
 * Each rank works alone: a collective moves only this rank's own data (an
 * all-reduce copies sendbuff to recvbuff, as with one contributor; an
 * all-gather puts sendbuff at this rank's slice) when the work is issued,
 * and a host function is enqueued on the call's stream, the way real NCCL
 * enqueues its kernel (the data is not moved there: the simulator runs host
 * functions on a thread of their own, after a buggy program under test may
 * have freed the buffers); nothing crosses processes and nothing
 * waits for the other ranks, so mismatched ranks do not hang.  Between
 * ncclGroupStart and ncclGroupEnd the work waits for ncclGroupEnd, as in
 * NCCL, and is issued from a thread of the double's own (as NCCL issues a
 * nonblocking communicator's).  Invalid arguments give ncclInvalidArgument,
 * as NCCL's do.
 *
 * Like NCCL, the double also launches a kernel of its own for each piece of
 * work (double/fake_nccl_kernels.cu), through cuLaunchKernel with its arguments in
 * one buffer (extra), as NCCL does: the communicator's device memory, and a
 * pinned work slot the host fills before each launch.  No CUDA rule orders
 * those internals the way the program sees them (NCCL orders its own work),
 * so a tool that took them for the program's memory would report races
 * there; cudalens models a collective from its call instead (nccl.def). */
#define _GNU_SOURCE
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef FAKE_NCCL_OWN_KERNEL /* (built where nvcc is) */
#include "fake_nccl_kernels_fatbin.h" /* generated: fake_nccl_kernels_fatbin[] */
#endif
#include "nccl.h"

struct ncclComm {
  int rank, nranks, device;
  unsigned char id[NCCL_UNIQUE_ID_BYTES];
  unsigned long long *state, *work; /* the double's own kernel's memory */
};

/* the double's own kernel (double/fake_nccl_kernels.cu), loaded once
 * through the driver's entry points, found at run time as NCCL finds them */
static CUfunction own_kernel;
static CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                          unsigned, unsigned, unsigned, CUstream, void **, void **);
static void own_load(void)
{
#ifdef FAKE_NCCL_OWN_KERNEL
  CUresult (*load)(CUmodule *, const void *) = dlsym(RTLD_DEFAULT, "cuModuleLoadData");
  CUresult (*get)(CUfunction *, CUmodule, const char *) =
      dlsym(RTLD_DEFAULT, "cuModuleGetFunction");
  launch = dlsym(RTLD_DEFAULT, "cuLaunchKernel");
  CUmodule m;
  if (load && get && launch && load(&m, fake_nccl_kernels_fatbin) == CUDA_SUCCESS)
    get(&own_kernel, m, "fake_nccl_kernel");
#endif
}

/* the double's own work for a collective on STREAM: the host fills the
 * work slot, then the kernel runs with its arguments in one buffer */
static ncclResult_t own_launch(struct ncclComm *c, cudaStream_t stream)
{
  if (!own_kernel || !c->state || !c->work)
    return ncclSuccess;
  c->work[0]++;
  /* the first 16 bytes of the kernel's 4 KiB parameter: what it reads */
  struct { unsigned long long *state, *work; } args = {c->state, c->work};
  size_t size = sizeof args;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args,
                   CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  return launch(own_kernel, 1, 1, 1, 1, 1, 1, 0, (CUstream)stream, NULL,
                        extra) == CUDA_SUCCESS ? ncclSuccess : ncclUnhandledCudaError;
}

static size_t type_size(ncclDataType_t t)
{
  static const size_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
  return (unsigned)t < sizeof sizes / sizeof *sizes ? sizes[t] : 0;
}

/* one rank's data movement, done on its stream */
struct move {
  void *dst;
  const void *src;
  size_t bytes;
  cudaStream_t stream;
  struct ncclComm *comm;
};

static void run_move(void *arg) { free(arg); }

static __thread int group_depth;
static __thread struct move **pending;
static __thread size_t npending, cappending;

static ncclResult_t issue(struct move *m)
{
  if (m->dst && m->src && m->dst != m->src && m->bytes)
    memmove(m->dst, m->src, m->bytes);
  ncclResult_t r = own_launch(m->comm, m->stream);
  if (r != ncclSuccess) {
    free(m);
    return r;
  }
  if (cudaLaunchHostFunc(m->stream, run_move, m) != cudaSuccess) {
    free(m);
    return ncclUnhandledCudaError;
  }
  return ncclSuccess;
}

static ncclResult_t enqueue(struct ncclComm *comm, void *dst, const void *src,
                            size_t bytes, cudaStream_t stream)
{
  struct move *m = malloc(sizeof *m);
  if (!m)
    return ncclSystemError;
  *m = (struct move){dst, src, bytes, stream, comm};
  if (!group_depth)
    return issue(m);
  if (npending == cappending) {
    size_t nc = cappending ? cappending * 2 : 8;
    struct move **v = realloc(pending, nc * sizeof *v);
    if (!v) {
      free(m);
      return ncclSystemError;
    }
    pending = v, cappending = nc;
  }
  pending[npending++] = m;
  return ncclSuccess;
}

static ncclResult_t check(ncclComm_t comm, ncclDataType_t t)
{
  return comm && type_size(t) ? ncclSuccess : ncclInvalidArgument;
}

ncclResult_t ncclGetVersion(int *version)
{
  if (!version)
    return ncclInvalidArgument;
  *version = 23203;
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t r)
{
  return r == ncclSuccess ? "no error" : "error (NCCL test double)";
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
  if (!id)
    return ncclInvalidArgument;
  memset(id, 0, sizeof *id);
  uint64_t v[2] = {(uint64_t)getpid(), (uint64_t)(uintptr_t)id ^ 0x9e3779b97f4a7c15ULL};
  memcpy(id->internal, v, sizeof v);
  return ncclSuccess;
}

static ncclResult_t make(ncclComm_t *comm, int nranks, int rank, const void *id,
                         int device)
{
  if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
    return ncclInvalidArgument;
  struct ncclComm *c = calloc(1, sizeof *c);
  if (!c)
    return ncclSystemError;
  c->rank = rank, c->nranks = nranks, c->device = device;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  if (cudaMalloc((void **)&c->state, 64) != cudaSuccess)
    c->state = NULL;
  if (cudaHostAlloc((void **)&c->work, 1 << 16, cudaHostAllocDefault) != cudaSuccess)
    c->work = NULL;
  if (c->state && c->work)
    pthread_once(&once, own_load);
  if (id)
    memcpy(c->id, id, sizeof c->id);
  *comm = c;
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess)
    return ncclUnhandledCudaError;
  return make(comm, nranks, rank, &id, dev);
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id,
                                    int rank, void *config)
{
  (void)config;
  return ncclCommInitRank(comm, nranks, id, rank);
}

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
  if (!comms || ndev < 1)
    return ncclInvalidArgument;
  for (int i = 0; i < ndev; i++) {
    ncclResult_t r = make(&comms[i], ndev, i, NULL, devlist ? devlist[i] : i);
    if (r != ncclSuccess)
      return r;
  }
  return ncclSuccess;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                           void *config)
{
  (void)key, (void)config;
  if (!comm || !newcomm)
    return ncclInvalidArgument;
  if (color == NCCL_SPLIT_NOCOLOR) {
    *newcomm = NULL;
    return ncclSuccess;
  }
  /* alone in the new communicator, as far as this rank can tell */
  return make(newcomm, 1, 0, comm->id, comm->device);
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
  if (!comm)
    return ncclInvalidArgument;
  if (comm->state)
    cudaFree(comm->state);
  if (comm->work)
    cudaFreeHost(comm->work);
  free(comm);
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
  if (!comm || !count)
    return ncclInvalidArgument;
  *count = comm->nranks;
  return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
  if (!comm || !device)
    return ncclInvalidArgument;
  *device = comm->device;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
  if (!comm || !rank)
    return ncclInvalidArgument;
  *rank = comm->rank;
  return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t t,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess || (unsigned)op >= ncclNumOps)
    return e != ncclSuccess ? e : ncclInvalidArgument;
  return enqueue(comm, r, s, n * type_size(t), st);
}

ncclResult_t ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t t, int root,
                           ncclComm_t comm, cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess || root < 0 || root >= comm->nranks)
    return e != ncclSuccess ? e : ncclInvalidArgument;
  return enqueue(comm, r, comm->rank == root ? s : NULL, n * type_size(t), st);
}

ncclResult_t ncclBcast(void *b, size_t n, ncclDataType_t t, int root, ncclComm_t comm,
                       cudaStream_t st)
{
  return ncclBroadcast(b, b, n, t, root, comm, st);
}

ncclResult_t ncclReduce(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess || root < 0 || root >= comm->nranks || (unsigned)op >= ncclNumOps)
    return e != ncclSuccess ? e : ncclInvalidArgument;
  return enqueue(comm, comm->rank == root ? r : NULL, s, n * type_size(t), st);
}

ncclResult_t ncclAllGather(const void *s, void *r, size_t n, ncclDataType_t t,
                           ncclComm_t comm, cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess)
    return e;
  size_t b = n * type_size(t);
  return enqueue(comm, r ? (char *)r + (size_t)comm->rank * b : NULL, s, b, st);
}

ncclResult_t ncclReduceScatter(const void *s, void *r, size_t n, ncclDataType_t t,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess || (unsigned)op >= ncclNumOps)
    return e != ncclSuccess ? e : ncclInvalidArgument;
  size_t b = n * type_size(t);
  return enqueue(comm, r, s ? (const char *)s + (size_t)comm->rank * b : NULL, b, st);
}

ncclResult_t ncclAlltoAll(const void *s, void *r, size_t n, ncclDataType_t t,
                          ncclComm_t comm, cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess)
    return e;
  size_t b = n * type_size(t), off = (size_t)comm->rank * b;
  return enqueue(comm, r ? (char *)r + off : NULL, s ? (const char *)s + off : NULL, b, st);
}

ncclResult_t ncclSend(const void *s, size_t n, ncclDataType_t t, int peer, ncclComm_t comm,
                      cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess || peer < 0 || peer >= comm->nranks)
    return e != ncclSuccess ? e : ncclInvalidArgument;
  (void)s, (void)n;
  return enqueue(comm, NULL, NULL, 0, st);
}

ncclResult_t ncclRecv(void *r, size_t n, ncclDataType_t t, int peer, ncclComm_t comm,
                      cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess || peer < 0 || peer >= comm->nranks)
    return e != ncclSuccess ? e : ncclInvalidArgument;
  (void)r, (void)n;
  return enqueue(comm, NULL, NULL, 0, st);
}

struct batch {
  struct move **v;
  size_t n;
  ncclResult_t result;
};

static void *issue_batch(void *p)
{
  struct batch *b = p;
  for (size_t i = 0; i < b->n; i++) {
    if (b->v[i]->comm)
      cudaSetDevice(b->v[i]->comm->device);
    ncclResult_t e = issue(b->v[i]);
    if (b->result == ncclSuccess)
      b->result = e;
  }
  return NULL;
}

ncclResult_t ncclGroupStart(void)
{
  group_depth++;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
  if (group_depth <= 0)
    return ncclInvalidUsage;
  if (--group_depth)
    return ncclSuccess;
  /* the group's work is issued from a thread of the double's own, as NCCL
   * issues a nonblocking communicator's (here joined before returning) */
  struct batch b = {pending, npending, ncclSuccess};
  pthread_t t;
  if (pthread_create(&t, NULL, issue_batch, &b) == 0)
    pthread_join(t, NULL);
  else
    issue_batch(&b);
  npending = 0;
  return b.result;
}

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
 * NCCL.  Invalid arguments give ncclInvalidArgument, as NCCL's do. */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl.h"

struct ncclComm {
  int rank, nranks, device;
  unsigned char id[NCCL_UNIQUE_ID_BYTES];
};

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
};

static void run_move(void *arg) { free(arg); }

static __thread int group_depth;
static __thread struct move **pending;
static __thread size_t npending, cappending;

static ncclResult_t issue(struct move *m)
{
  if (m->dst && m->src && m->dst != m->src && m->bytes)
    memmove(m->dst, m->src, m->bytes);
  if (cudaLaunchHostFunc(m->stream, run_move, m) != cudaSuccess) {
    free(m);
    return ncclUnhandledCudaError;
  }
  return ncclSuccess;
}

static ncclResult_t enqueue(void *dst, const void *src, size_t bytes,
                            cudaStream_t stream)
{
  struct move *m = malloc(sizeof *m);
  if (!m)
    return ncclSystemError;
  *m = (struct move){dst, src, bytes, stream};
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
  return enqueue(r, s, n * type_size(t), st);
}

ncclResult_t ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t t, int root,
                           ncclComm_t comm, cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess || root < 0 || root >= comm->nranks)
    return e != ncclSuccess ? e : ncclInvalidArgument;
  return enqueue(r, comm->rank == root ? s : NULL, n * type_size(t), st);
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
  return enqueue(comm->rank == root ? r : NULL, s, n * type_size(t), st);
}

ncclResult_t ncclAllGather(const void *s, void *r, size_t n, ncclDataType_t t,
                           ncclComm_t comm, cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess)
    return e;
  size_t b = n * type_size(t);
  return enqueue(r ? (char *)r + (size_t)comm->rank * b : NULL, s, b, st);
}

ncclResult_t ncclReduceScatter(const void *s, void *r, size_t n, ncclDataType_t t,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess || (unsigned)op >= ncclNumOps)
    return e != ncclSuccess ? e : ncclInvalidArgument;
  size_t b = n * type_size(t);
  return enqueue(r, s ? (const char *)s + (size_t)comm->rank * b : NULL, b, st);
}

ncclResult_t ncclAlltoAll(const void *s, void *r, size_t n, ncclDataType_t t,
                          ncclComm_t comm, cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess)
    return e;
  size_t b = n * type_size(t), off = (size_t)comm->rank * b;
  return enqueue(r ? (char *)r + off : NULL, s ? (const char *)s + off : NULL, b, st);
}

ncclResult_t ncclSend(const void *s, size_t n, ncclDataType_t t, int peer, ncclComm_t comm,
                      cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess || peer < 0 || peer >= comm->nranks)
    return e != ncclSuccess ? e : ncclInvalidArgument;
  (void)s, (void)n;
  return enqueue(NULL, NULL, 0, st);
}

ncclResult_t ncclRecv(void *r, size_t n, ncclDataType_t t, int peer, ncclComm_t comm,
                      cudaStream_t st)
{
  ncclResult_t e = check(comm, t);
  if (e != ncclSuccess || peer < 0 || peer >= comm->nranks)
    return e != ncclSuccess ? e : ncclInvalidArgument;
  (void)r, (void)n;
  return enqueue(NULL, NULL, 0, st);
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
  ncclResult_t r = ncclSuccess;
  for (size_t i = 0; i < npending; i++) {
    ncclResult_t e = issue(pending[i]);
    if (r == ncclSuccess)
      r = e;
  }
  npending = 0;
  return r;
}

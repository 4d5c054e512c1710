/* format.h - the cudalens database format, shared by the recorder (libcudalens.so)
 * and the analyzer (cudalens-report).
 *
 * A recording is one SQLite file per process.  PRAGMA user_version holds
 * CL_SCHEMA_VERSION; the analyzer refuses files with a newer version.  The
 * tables are declared in tables.def, created by CL_SCHEMA_SQL (tables.h) and
 * documented in cudalens-db(5).  Every change to the tables bumps
 * CL_SCHEMA_VERSION and the man page.
 */
#ifndef CUDALENS_FORMAT_H
#define CUDALENS_FORMAT_H

#include "cudalens/tables.h"

#define CL_SCHEMA_VERSION 7
#define CL_FORMAT_NAME "cudalens"

/* A word of launch_args.args (tables.def): parameter index and byte offset
 * inside it (16-bit each), flags (8-bit), the pointer value (64-bit), all
 * big-endian (so that SQL reads them from hex(); the kernel_args view) */
#define CL_LAUNCH_ARG_SIZE 13
#define CL_LAUNCH_ARG_UNINIT 1 /* it may be stale: its parameter held an
                                * address in host code (not fully
                                * initialized), or it is past the
                                * parameter's 16th word (shim/kparams.c) */

static inline void cl_launch_arg_put(unsigned char *p, unsigned param,
                                     unsigned offset, unsigned flags,
                                     unsigned long long value)
{
  p[0] = (unsigned char)(param >> 8);
  p[1] = (unsigned char)param;
  p[2] = (unsigned char)(offset >> 8);
  p[3] = (unsigned char)offset;
  p[4] = (unsigned char)flags;
  for (int i = 0; i < 8; i++)
    p[5 + i] = (unsigned char)(value >> (56 - 8 * i));
}

static inline void cl_launch_arg_get(const unsigned char *p, unsigned *param,
                                     unsigned *offset, unsigned *flags,
                                     unsigned long long *value)
{
  unsigned long long v = 0;
  *param = (unsigned)p[0] << 8 | p[1];
  *offset = (unsigned)p[2] << 8 | p[3];
  *flags = p[4];
  for (int i = 0; i < 8; i++)
    v = v << 8 | p[5 + i];
  *value = v;
}

/* A footprint file (tables.def, CL_FP_TABLE) is a file of its own kind,
 * written by another process (the footprint collector, in a separate run of
 * the program) than a recording: its meta format is CL_FOOTPRINT_NAME and
 * its PRAGMA user_version CL_FOOTPRINT_VERSION, which moves apart from
 * CL_SCHEMA_VERSION (a recording's tables are not changed by it). */
#define CL_FOOTPRINT_VERSION 1
#define CL_FOOTPRINT_NAME "cudalens-footprint"

/* The kinds of access of a footprint (fp_ranges.kind, fp_unattributed.kind),
 * from the Sanitizer API's flags of a global memory access
 * (sanitizer_patching.h, Sanitizer_DeviceMemoryFlags): READ alone, WRITE
 * alone, or both, which an atomic read-modify-write reports */
#define CL_FP_KIND_LIST(X)                                                     \
  X(READ, "read")                                                              \
  X(WRITE, "write")                                                            \
  X(ATOMIC, "atomic")

enum cl_fp_kind {
#define CL_FP_KIND_ENUM(id, name) CL_FP_##id,
  CL_FP_KIND_LIST(CL_FP_KIND_ENUM)
#undef CL_FP_KIND_ENUM
  CL_FP_KIND_COUNT
};

/* Operation classes: what a CUDA API call does to streams, memory and
 * synchronization.  Stored as text in api.op. */
#define CL_OP_LIST(X)                                                          \
  X(OTHER, "other")                                                            \
  X(ALLOC, "alloc")                                                            \
  X(FREE, "free")                                                              \
  X(COPY, "copy")                                                              \
  X(MEMSET, "memset")                                                          \
  X(KERNEL, "kernel")                                                          \
  X(STREAM_CREATE, "stream-create")                                            \
  X(STREAM_DESTROY, "stream-destroy")                                          \
  X(EVENT_CREATE, "event-create")                                              \
  X(EVENT_DESTROY, "event-destroy")                                            \
  X(EVENT_RECORD, "event-record")                                              \
  X(STREAM_WAIT_EVENT, "stream-wait-event")                                    \
  X(SYNC_DEVICE, "sync-device")                                                \
  X(SYNC_CONTEXT, "sync-context")                                              \
  X(SYNC_STREAM, "sync-stream")                                                \
  X(SYNC_EVENT, "sync-event")                                                  \
  X(QUERY_STREAM, "query-stream")                                              \
  X(QUERY_EVENT, "query-event")                                                \
  X(SET_DEVICE, "set-device")                                                  \
  X(SET_CONTEXT, "set-context")                                                \
  X(RESET_DEVICE, "reset-device")                                              \
  X(PEER_ENABLE, "peer-enable")                                                \
  X(PEER_DISABLE, "peer-disable")                                              \
  X(HOST_FUNC, "host-func")                                                    \
  X(GRAPH_LAUNCH, "graph-launch")                                              \
  X(CAPTURE_BEGIN, "capture-begin")                                            \
  X(CAPTURE_END, "capture-end")                                                \
  X(PREFETCH, "prefetch")                                                      \
  X(GRAPH_NODE, "graph-node")                                                  \
  X(GRAPH_EXEC, "graph-exec")                                                  \
  X(GRAPH_EXEC_NODE, "graph-exec-node")                                        \
  X(ACCESS, "access")                                                          \
  X(COLLECTIVE, "collective")                                                  \
  X(COMM_CREATE, "comm-create")                                                \
  X(COMM_DESTROY, "comm-destroy")

enum cl_op {
#define CL_OP_ENUM(id, name) CL_OP_##id,
  CL_OP_LIST(CL_OP_ENUM)
#undef CL_OP_ENUM
  CL_OP_COUNT
};

/* NCCL's ncclInProgress (nccl.h), the result of a call on a non-blocking
 * communicator whose work is under way: calls.result keeps it, and the
 * call counts as made (its collectives or communicators row is written). */
#define CL_NCCL_IN_PROGRESS 7

/* Memory kinds of allocations and of the two sides of a copy (memory.kind,
 * transfers.src_kind, transfers.dst_kind).  MAPPED: device memory mapped
 * into a reserved range (cuMemMap); RESERVED: a virtual address range
 * (cuMemAddressReserve), not memory itself. */
#define CL_MEMKIND_LIST(X)                                                     \
  X(UNKNOWN, "unknown")                                                        \
  X(PAGEABLE, "pageable")                                                      \
  X(PINNED, "pinned")                                                          \
  X(REGISTERED, "registered")                                                  \
  X(DEVICE, "device")                                                          \
  X(DEVICE_ASYNC, "device-async")                                              \
  X(MANAGED, "managed")                                                        \
  X(ARRAY, "array")                                                            \
  X(MAPPED, "mapped")                                                          \
  X(RESERVED, "reserved")

enum cl_memkind {
#define CL_MEMKIND_ENUM(id, name) CL_MEMKIND_##id,
  CL_MEMKIND_LIST(CL_MEMKIND_ENUM)
#undef CL_MEMKIND_ENUM
  CL_MEMKIND_COUNT
};

/* Copy directions (transfers.direction). */
#define CL_DIR_LIST(X)                                                         \
  X(UNKNOWN, "unknown")                                                        \
  X(HTOH, "htoh")                                                              \
  X(HTOD, "htod")                                                              \
  X(DTOH, "dtoh")                                                              \
  X(DTOD, "dtod")                                                              \
  X(PEER, "peer")                                                              \
  X(DEFAULT, "default")

enum cl_dir {
#define CL_DIR_ENUM(id, name) CL_DIR_##id,
  CL_DIR_LIST(CL_DIR_ENUM)
#undef CL_DIR_ENUM
  CL_DIR_COUNT
};

/* Node types of CUDA graphs (graph_nodes.type): CUDA's CUgraphNodeType
 * values, and GRAPH_END, the point where a flattened child graph's nodes
 * join again (cudalens' own). */
#define CL_GNODE_LIST(X)                                                       \
  X(KERNEL, 0, "kernel")                                                       \
  X(MEMCPY, 1, "memcpy")                                                       \
  X(MEMSET, 2, "memset")                                                       \
  X(HOST, 3, "host")                                                           \
  X(GRAPH, 4, "graph")                                                         \
  X(EMPTY, 5, "empty")                                                         \
  X(WAIT_EVENT, 6, "wait-event")                                               \
  X(EVENT_RECORD, 7, "event-record")                                           \
  X(SEMA_SIGNAL, 8, "semaphore-signal")                                        \
  X(SEMA_WAIT, 9, "semaphore-wait")                                            \
  X(MEM_ALLOC, 10, "mem-alloc")                                                \
  X(MEM_FREE, 11, "mem-free")                                                  \
  X(BATCH_MEM_OP, 12, "batch-mem-op")                                          \
  X(CONDITIONAL, 13, "conditional")                                            \
  X(GRAPH_END, 100, "graph-end")                                               \
  X(UNKNOWN, 255, "unknown")

enum cl_gnode {
#define CL_GNODE_ENUM(id, value, name) CL_GNODE_##id = value,
  CL_GNODE_LIST(CL_GNODE_ENUM)
#undef CL_GNODE_ENUM
};

/* Stream handles with a fixed meaning (streams.handle, calls.stream). */
#define CL_STREAM_LEGACY 0x1ULL     /* cudaStreamLegacy */
#define CL_STREAM_PER_THREAD 0x2ULL /* cudaStreamPerThread */

const char *cl_op_name(enum cl_op op);
const char *cl_memkind_name(enum cl_memkind k);
/* syncs.kind of a synchronization or query operation ("device", "context",
 * "stream", "event", "stream-query", "event-query"), NULL for other ops;
 * and back: the operation of a syncs.kind, -1 when unknown */
const char *cl_sync_kind_name(enum cl_op op);
int cl_sync_kind_op(const char *kind);
const char *cl_dir_name(enum cl_dir d);
/* a footprint kind's name, and back (-1 when unknown) */
const char *cl_fp_kind_name(enum cl_fp_kind k);
int cl_fp_kind_of(const char *name);
/* a graph node type's name ("unknown" for values not listed), and back
 * (CL_GNODE_UNKNOWN when unknown) */
const char *cl_gnode_name(int type);
int cl_gnode_of(const char *name);

#endif

/* semantics.h - CUDA's ordering rules, read from the one table
 * include/cudalens/ops.def: whether an operation is stream work, what the
 * host knows when a call returns, how each copy and memset orders with
 * the host, and what a synchronization covers.  Shared by the recorder's
 * host check and the analyzer. */
#ifndef CUDALENS_SEMANTICS_H
#define CUDALENS_SEMANTICS_H

#include <stdbool.h>

#include "cudalens/format.h"

enum cl_work { CL_WORK_NONE, CL_WORK_TASK, CL_WORK_MARK, CL_WORK_HANDLE };
enum cl_host { CL_HOST_NONE, CL_HOST_STREAM, CL_HOST_EVENT, CL_HOST_DEVICE,
               CL_HOST_RULE };
enum cl_edge { CL_EDGE_DOC, CL_EDGE_UNPROMISED };

struct cl_op_sem {
  enum cl_work work;
  enum cl_host host;
  enum cl_edge edge;
  const char *doc;
};

/* the row of operation class OP (a row of NONE/NONE for classes the table
 * does not list: device selection, creation, peer access) */
const struct cl_op_sem *cl_op_sem(enum cl_op op);
/* is a call of class OP stream work?  HAS_STREAM: the call named a stream */
bool cl_op_is_stream_work(enum cl_op op, bool has_stream);

/* Stream work that takes time on its stream and uses its device (ops.def
 * work TASK: kernels, copies, memsets, host functions, graph launches,
 * prefetches); not the markers (MARK: event records and waits, capture
 * begin and end, collectives) nor stream-ordered allocation.  What
 * serializes with other streams and what makes a device "used". */
bool cl_op_is_stream_task(enum cl_op op);

/* memory classes of section 2 */
enum cl_memclass { CL_MC_PAGEABLE, CL_MC_PINNED, CL_MC_MANAGED, CL_MC_DEVICE,
                   CL_MC_ANY };
enum cl_memclass cl_memclass_of(enum cl_memkind k);
/* host memory (pageable, pinned or registered)? */
bool cl_memkind_is_host(enum cl_memkind k);

enum cl_copy_rule_id {
#define CL_COPY_RULE(id, op, mode, dir, kind, before, source, after, edge, doc) \
  CL_RULE_##id,
#include "cudalens/ops.def"
  CL_RULE_COUNT
};

enum cl_after { CL_AFTER_NONE, CL_AFTER_DONE, CL_AFTER_DEVICES };

struct cl_copy_rule {
  enum cl_copy_rule_id id;
  const char *name;         /* "SYNC_HTOD_PAGEABLE" */
  bool host_waits_before;   /* the host waits for the stream first */
  bool source_by_host;      /* the source is read by the host, at the call */
  enum cl_after after;
  enum cl_edge edge;
  const char *doc;
};

/* the rule of a copy (IS_MEMSET false) or memset: ASYNC for the ...Async
 * forms, DIR its direction (enum cl_dir, resolved), HOST_KIND the memory
 * kind of its host side (memset: of its target) */
const struct cl_copy_rule *cl_copy_rule(bool is_memset, bool async, int dir,
                                        int host_kind);

/* what the calling host thread knows once a successful call of class OP
 * returned: section 1's host, where a copy or memset (RULE) knows its
 * stream (STREAM) when RULE's `after` is DONE, else nothing (RULE is
 * NULL for other classes) */
enum cl_host cl_host_after(enum cl_op op, const struct cl_copy_rule *rule);

/* section 3b: what a synchronization covers */
enum cl_stream_class { CL_SC_LEGACY, CL_SC_PER_THREAD, CL_SC_BLOCKING,
                       CL_SC_NONBLOCKING, CL_SC_UNKNOWN, CL_SC_ANY };
/* how: not at all, directly, or only through the legacy default stream's
 * implicit synchronization (the happens-before engine's HB_EDGE_LEGACY) */
enum cl_cover { CL_COVER_NONE, CL_COVER_DIRECT, CL_COVER_LEGACY };
enum cl_sync_kind { CL_SYNC_DEVICE, CL_SYNC_STREAM, CL_SYNC_EVENT,
                    CL_SYNC_ISSUE };

/* a synchronization: of a device, of stream ON's work so far, of what an
 * event recorded on stream ON captured, or an operation issued to ON */
struct cl_sync {
  enum cl_sync_kind kind;
  enum cl_stream_class on;  /* not read for DEVICE */
};
/* earlier work, as seen from a synchronization: its stream's class, whether
 * that is the stream synchronized (SAME_STREAM), and whether it is a stream
 * of the same device (DEVICE: of the device synchronized; the caller says
 * what an unknown device means) */
struct cl_prior {
  enum cl_stream_class stream;
  bool same_stream, same_device;
};

enum cl_sync_cover_id {
#define CL_SYNC_COVER(id, sync, on, work, cover, doc) CL_COVER_RULE_##id,
#include "cudalens/ops.def"
  CL_COVER_RULE_COUNT
};
struct cl_cover_rule {
  enum cl_sync_cover_id id;
  const char *name;         /* "STREAM_LEGACY_BLOCKING" */
  enum cl_cover cover;
  const char *doc;
};
/* the row of section 3b that decides whether SYNC covers PRIOR (the table
 * ends each kind with a catch-all row) */
const struct cl_cover_rule *cl_sync_rule(const struct cl_sync *sync,
                                         const struct cl_prior *prior);
/* ... and its answer */
enum cl_cover cl_sync_covers(const struct cl_sync *sync,
                             const struct cl_prior *prior);
/* the sync kind of what the host knows (STREAM, EVENT, DEVICE); false for
 * NONE and RULE */
bool cl_sync_kind_of(enum cl_host host, enum cl_sync_kind *kind);

/* section 4: what lets another device reach memory of kind K (the rule's
 * right, e.g. "peer access to it", and its documentation), NULL for memory
 * every device reaches or no rule governs */
const char *cl_access_right(enum cl_memkind k);
const char *cl_access_doc(enum cl_memkind k);

#endif

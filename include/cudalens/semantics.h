/* semantics.h - CUDA's ordering rules, read from the one table
 * include/cudalens/ops.def: whether an operation is stream work, what the
 * host knows when a call returns, and how each copy and memset orders with
 * the host.  Shared by the recorder's host check and the analyzer. */
#ifndef CUDALENS_SEMANTICS_H
#define CUDALENS_SEMANTICS_H

#include <stdbool.h>

#include "cudalens/format.h"

enum cl_work { CL_WORK_NONE, CL_WORK_STREAM, CL_WORK_HANDLE };
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

/* Stream work that takes time on its stream and uses its device: kernels,
 * copies, memsets, host functions, graph launches, prefetches; not the
 * markers (event records and waits, capture begin and end) nor
 * stream-ordered allocation.  What serializes with other streams and what
 * makes a device "used". */
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

enum cl_order_rule_id {
#define CL_ORDER_RULE(id, edge, doc) CL_ORDER_##id,
#include "cudalens/ops.def"
  CL_ORDER_COUNT
};
/* the documentation sentence of an ordering rule of section 3 */
const char *cl_order_doc(enum cl_order_rule_id id);

/* section 4: what lets another device reach memory of kind K (the rule's
 * right, e.g. "peer access to it", and its documentation), NULL for memory
 * every device reaches or no rule governs */
const char *cl_access_right(enum cl_memkind k);
const char *cl_access_doc(enum cl_memkind k);

#endif

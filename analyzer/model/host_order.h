/* host_order.h - what the recording says orders host threads beyond the
 * CUDA calls: thread creations and joins (thread_edges, schema 2), read in
 * seq order through a cursor, and the runs of host functions enqueued with
 * cudaLaunchHostFunc (host_func_runs, schema 4).  Recordings older than
 * those tables have none. */
#ifndef CL_REPORT_HOST_ORDER_H
#define CL_REPORT_HOST_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/db.h"

enum thread_edge_kind { TE_OTHER, TE_CREATE, TE_JOIN };

struct thread_edge {
  int64_t seq;
  enum thread_edge_kind kind; /* TID created OTHER, TID joined OTHER */
  int64_t tid, other;
};

/* db_cursor_close closes it */
struct db_cursor *thread_edges_open(struct cl_db *d);
bool thread_edges_next(struct db_cursor *c, struct thread_edge *e);

/* a host function's run: on thread TID, at seq RUN, of the function the
 * call CALL (cudaLaunchHostFunc, matched by correlation id) enqueued */
struct host_func_run {
  int64_t run, tid, call;
};
/* the runs (malloc'd, *N of them), in no particular order */
struct host_func_run *host_func_runs_read(struct cl_db *d, size_t *n);

#endif

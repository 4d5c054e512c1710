/* collectives.h - the NCCL calls the recording describes (collectives,
 * schema 4): the buffers each reads and writes, read in seq order through
 * a cursor alongside the calls, and the calls themselves with their
 * communicator, rank and operation. */
#ifndef CL_REPORT_COLLECTIVES_H
#define CL_REPORT_COLLECTIVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/db.h"

struct coll_buffers {
  int64_t seq;
  uint64_t read_addr, write_addr; /* 0: none */
  int64_t read_bytes, write_bytes;
};

/* db_cursor_close closes it */
struct db_cursor *coll_buffers_open(struct cl_db *d);
bool coll_buffers_next(struct db_cursor *c, struct coll_buffers *b);

/* a collective call with what identifies it across ranks */
struct coll_call {
  int64_t seq;
  int64_t comm_id;
  int32_t rank, nranks;  /* nranks -1: not recorded */
  char *kind;            /* "allreduce", ... (malloc'd) */
  int64_t count, datatype;
  int64_t root, redop;   /* -1: none */
  int64_t stack, pystack; /* of the call, -1: none */
};
/* the collective calls that succeeded (or are in progress: ncclInProgress)
 * and name their communicator, rank and kind, point-to-point sends and
 * receives left out, by seq (malloc'd, *N of them; coll_calls_free) */
struct coll_call *coll_calls_read(struct cl_db *d, size_t *n);
void coll_calls_free(struct coll_call *v, size_t n);

#endif

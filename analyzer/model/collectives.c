/* collectives.c - NCCL collectives' buffers and calls (collectives.h). */
#include "model/collectives.h"

#include <stdlib.h>

#include "cudalens/format.h"
#include "util.h"

/* the collectives rows read alongside the calls: these columns */
#define BUF_COLS                                                               \
  (CL_COLS(collectives, seq) | CL_COLS(collectives, read_addr) |               \
   CL_COLS(collectives, read_bytes) | CL_COLS(collectives, write_addr) |       \
   CL_COLS(collectives, write_bytes))
#define BUF_COL(c) CL_RANK(BUF_COLS, collectives, c)

struct db_cursor *coll_buffers_open(struct cl_db *d)
{
  return db_cursor_open(
      d, db_has_table(d, "collectives")
             ? db_prepare_table(d, CL_TABLE_collectives, BUF_COLS,
                                "ORDER BY seq")
             : NULL);
}

bool coll_buffers_next(struct db_cursor *c, struct coll_buffers *b)
{
  if (!db_cursor_step(c))
    return false;
  *b = (struct coll_buffers){
      db_int(c->st, BUF_COL(seq)),
      (uint64_t)db_int(c->st, BUF_COL(read_addr)),
      (uint64_t)db_int(c->st, BUF_COL(write_addr)),
      db_int(c->st, BUF_COL(read_bytes)),
      db_int(c->st, BUF_COL(write_bytes))};
  return true;
}

struct coll_call *coll_calls_read(struct cl_db *d, size_t *n)
{
  struct coll_call *v = NULL;
  size_t cap = 0;
  *n = 0;
  if (!db_has_table(d, "collectives"))
    return NULL;
  sqlite3_stmt *st = db_prepare(
      d,
      "SELECT k.seq, k.comm_id, k.rank, k.nranks, k.kind, k.count,"
      " k.datatype, k.root, k.redop, c.stack, c.pystack"
      " FROM collectives k JOIN calls c ON c.seq = k.seq"
      " WHERE c.result IN (0, ?1) AND k.comm_id IS NOT NULL AND k.rank IS NOT NULL"
      " AND k.kind IS NOT NULL AND k.kind NOT IN ('send', 'recv')"
      " ORDER BY k.seq");
  if (st)
    sqlite3_bind_int(st, 1, CL_NCCL_IN_PROGRESS);
  while (st && db_step(d, st)) {
    GROW(v, cap, *n + 1);
    v[(*n)++] = (struct coll_call){
        .seq = db_int(st, 0),
        .comm_id = db_int(st, 1),
        .rank = (int32_t)db_int(st, 2),
        .nranks = db_null(st, 3) ? -1 : (int32_t)db_int(st, 3),
        .kind = xstrdup(db_text(st, 4)),
        .count = db_int(st, 5),
        .datatype = db_int(st, 6),
        .root = db_null(st, 7) ? -1 : db_int(st, 7),
        .redop = db_null(st, 8) ? -1 : db_int(st, 8),
        .stack = db_null(st, 9) ? -1 : db_int(st, 9),
        .pystack = db_null(st, 10) ? -1 : db_int(st, 10)};
  }
  db_finalize(st);
  return v;
}

void coll_calls_free(struct coll_call *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(v[i].kind);
  free(v);
}

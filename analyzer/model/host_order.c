/* host_order.c - thread edges and host function runs (host_order.h). */
#include "model/host_order.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct db_cursor *thread_edges_open(struct cl_db *d)
{
  return db_cursor_open(
      d, db_has_table(d, "thread_edges")
             ? db_prepare(d, "SELECT seq, kind, tid, other FROM thread_edges"
                             " ORDER BY seq")
             : NULL);
}

bool thread_edges_next(struct db_cursor *c, struct thread_edge *e)
{
  if (!db_cursor_step(c))
    return false;
  const char *kind = db_text(c->st, 1);
  *e = (struct thread_edge){
      db_int(c->st, 0),
      kind && !strcmp(kind, "create") ? TE_CREATE
      : kind && !strcmp(kind, "join") ? TE_JOIN
                                      : TE_OTHER,
      db_int(c->st, 2), db_int(c->st, 3)};
  return true;
}

struct host_func_run *host_func_runs_read(struct cl_db *d, size_t *n)
{
  struct host_func_run *v = NULL;
  size_t cap = 0;
  *n = 0;
  if (!db_has_table(d, "host_func_runs"))
    return NULL;
  /* most recordings have none; the join below scans every call (there is
   * no index on calls.correlation): 1.2 s at 10M calls for no row */
  sqlite3_stmt *any = db_prepare(d, "SELECT 1 FROM host_func_runs LIMIT 1");
  bool some = db_step(d, any);
  db_finalize(any);
  if (!some)
    return NULL;
  sqlite3_stmt *q = db_prepare(
      d, "SELECT r.seq, r.tid, c.seq FROM host_func_runs r"
         " JOIN calls c ON c.correlation = r.correlation"
         " JOIN api a ON a.id = c.api AND a.op = 'host-func'");
  while (db_step(d, q)) {
    GROW(v, cap, *n + 1);
    v[(*n)++] = (struct host_func_run){db_int(q, 0), db_int(q, 1),
                                       db_int(q, 2)};
  }
  db_finalize(q);
  return v;
}

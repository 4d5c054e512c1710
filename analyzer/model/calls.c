/* calls.c - calls looked up by seq, the facts of all calls, the devices
 * the recording's memory and contexts name (calls.h). */
#include "model/calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalens/semantics.h"
#include "util.h"

static const char CALL_INFO_SQL[] =
    "SELECT a.name, c.stack, c.pystack, k.name, t.direction, t.bytes"
    " FROM calls c JOIN api a ON a.id = c.api"
    " LEFT JOIN kernels k ON k.seq = c.seq"
    " LEFT JOIN transfers t ON t.seq = c.seq WHERE c.seq = ?1";

static int64_t id_or(sqlite3_stmt *st, int col)
{
  return db_null(st, col) ? -1 : db_int(st, col);
}

bool call_info(struct cl_db *d, int64_t seq, struct call_info *out)
{
  sqlite3_stmt *st = db_cached(d, CALL_INFO_SQL);
  memset(out, 0, sizeof *out);
  out->seq = seq;
  out->stack = out->pystack = out->kname = -1;
  if (!st)
    return false;
  sqlite3_bind_int64(st, 1, seq);
  if (!db_step(d, st))
    return false;
  out->api = db_text(st, 0);
  out->stack = id_or(st, 1);
  out->pystack = id_or(st, 2);
  out->kname = sqlite3_column_type(st, 3) == SQLITE_INTEGER ? db_int(st, 3) : -1;
  out->direction = db_text(st, 4);
  out->bytes = db_int(st, 5);
  return true;
}

static const char FIRST_AFTER_SQL[] =
    "SELECT c.seq, c.stack, c.pystack, a.name FROM calls c"
    " LEFT JOIN api a ON a.id = c.api"
    " WHERE c.seq > ?1 AND (c.device = ?2 OR ?3) ORDER BY c.seq LIMIT 1";

bool call_first_after(struct cl_db *d, int64_t after, int64_t device,
                      bool any_device, struct call_info *out)
{
  sqlite3_stmt *st = db_cached(d, FIRST_AFTER_SQL);
  memset(out, 0, sizeof *out);
  out->stack = out->pystack = out->kname = -1;
  if (!st)
    return false;
  sqlite3_bind_int64(st, 1, after);
  sqlite3_bind_int64(st, 2, device);
  sqlite3_bind_int(st, 3, any_device);
  if (!db_step(d, st))
    return false;
  out->seq = db_int(st, 0);
  out->stack = id_or(st, 1);
  out->pystack = id_or(st, 2);
  out->api = db_text(st, 3);
  return true;
}

static const char WHEN_SQL[] =
    "SELECT c.start_ns - coalesce((SELECT CAST(value AS INTEGER)"
    " FROM meta WHERE key = 'start_ns'), (SELECT min(start_ns)"
    " FROM calls)) FROM calls c WHERE c.seq = ?1";

int64_t call_time_into_run(struct cl_db *d, int64_t seq)
{
  sqlite3_stmt *st = seq >= 0 ? db_cached(d, WHEN_SQL) : NULL;
  if (!st)
    return -1;
  sqlite3_bind_int64(st, 1, seq);
  if (db_step(d, st) && !db_null(st, 0) && db_int(st, 0) >= 0)
    return db_int(st, 0);
  return -1;
}

/* the facts replay.c gathers, from SQL */
static void facts_from_sql(struct cl_db *d, struct calls_facts *f)
{
  memset(f, 0, sizeof *f);
  sqlite3_stmt *st = db_prepare(d, "SELECT count(*), count(DISTINCT tid),"
                                   " min(start_ns), max(end_ns) FROM calls");
  if (db_step(d, st)) {
    f->calls = db_int(st, 0);
    f->threads = db_int(st, 1);
    f->has_start = !db_null(st, 2);
    f->min_start = db_int(st, 2);
    f->has_end = !db_null(st, 3);
    f->max_end = db_int(st, 3);
  }
  db_finalize(st);
  f->first_kernel = INT64_MAX;
  st = db_prepare(d, "SELECT min(c.seq) FROM calls c JOIN api a ON a.id = c.api"
                     " WHERE a.op IN ('kernel', 'graph-launch') AND c.result = 0");
  if (db_step(d, st) && !db_null(st, 0))
    f->first_kernel = db_int(st, 0);
  db_finalize(st);
  /* the devices that ran stream work (cl_op_is_stream_task) */
  char tasks[256] = "", sql[512];
  for (int op = 0; op < CL_OP_COUNT; op++)
    if (cl_op_is_stream_task((enum cl_op)op))
      snprintf(tasks + strlen(tasks), sizeof tasks - strlen(tasks), "%s'%s'",
               tasks[0] ? ", " : "", cl_op_name((enum cl_op)op));
  snprintf(sql, sizeof sql,
           "SELECT DISTINCT c.device FROM calls c JOIN api a ON a.id = c.api"
           " WHERE a.op IN (%s) AND c.result = 0 AND c.device IS NOT NULL",
           tasks);
  size_t cap = 0;
  st = db_prepare(d, sql);
  while (db_step(d, st)) {
    GROW(f->task_devices, cap, f->ntask_devices + 1);
    f->task_devices[f->ntask_devices++] = db_int(st, 0);
  }
  db_finalize(st);
}

const struct calls_facts *calls_facts(struct cl_db *d)
{
  const struct calls_facts *f = replay_calls_facts(d);
  if (f)
    return f;
  if (!d->facts_sql) {
    d->facts_sql = xcalloc(1, sizeof *d->facts_sql);
    facts_from_sql(d, d->facts_sql);
  }
  return d->facts_sql;
}

int64_t *devices_with_memory(struct cl_db *d, size_t *n)
{
  static const char *const q[] = {
      "SELECT DISTINCT device FROM memory WHERE op = 'alloc'"
      " AND kind IN ('device', 'device-async', 'managed', 'array', 'mapped')",
      "SELECT DISTINCT src_device FROM transfers",
      "SELECT DISTINCT dst_device FROM transfers",
      "SELECT DISTINCT peer FROM device_ops WHERE op = 'peer-enable'",
      NULL};
  int64_t *v = NULL;
  size_t cap = 0;
  *n = 0;
  for (const char *const *s = q; *s; s++) {
    sqlite3_stmt *st = db_prepare(d, *s);
    while (db_step(d, st))
      if (!db_null(st, 0)) {
        GROW(v, cap, *n + 1);
        v[(*n)++] = db_int(st, 0);
      }
    db_finalize(st);
  }
  return v;
}

struct device_contexts *contexts_by_device(struct cl_db *d, size_t *n)
{
  struct device_contexts *v = NULL;
  size_t cap = 0;
  *n = 0;
  sqlite3_stmt *st = db_prepare(
      d, "SELECT device, count(*), min(coalesce(created_seq, 0)) FROM contexts"
         " WHERE device IS NOT NULL GROUP BY device ORDER BY device");
  while (db_step(d, st)) {
    GROW(v, cap, *n + 1);
    v[(*n)++] = (struct device_contexts){db_int(st, 0), db_int(st, 1),
                                         db_int(st, 2)};
  }
  db_finalize(st);
  return v;
}

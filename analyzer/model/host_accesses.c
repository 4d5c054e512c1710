/* host_accesses.c - the host accesses with the device work in flight on
 * them and the allocation they lie in (host_accesses.h): one query. */
#include "model/host_accesses.h"

#include <stdlib.h>
#include <string.h>


struct db_cursor *host_accesses_open(struct cl_db *d)
{
  /* the allocation accessed is the latest one holding the address; the
   * kernel's argument is the first whose pointer lies in it */
  return db_cursor_open(d, db_prepare(
      d,
      "SELECT h.kind, coalesce(h.stack, -1), coalesce(h.pystack, -1),"
      " h.copy_seq, h.address, coalesce(t.bytes, 0),"
      " coalesce(t.stream, k.stream, c.stream), t.direction, t.op,"
      " k.seq IS NOT NULL, k.name,"
      " (SELECT min(a.param) FROM kernel_args a WHERE a.seq = h.copy_seq"
      "  AND a.value >= m.address AND a.value < m.address + m.size),"
      " m.kind, c.device, ap.name, h.seq, m.size, t.seq IS NOT NULL"
      " FROM host_accesses h LEFT JOIN transfers t ON t.seq = h.copy_seq"
      " LEFT JOIN calls c ON c.seq = h.copy_seq"
      " LEFT JOIN api ap ON ap.id = c.api"
      " LEFT JOIN kernels k ON k.seq = h.copy_seq"
      " LEFT JOIN memory m ON m.seq = (SELECT max(m2.seq) FROM memory m2"
      "  WHERE m2.op = 'alloc' AND m2.seq < h.seq AND m2.address <= h.address"
      "  AND h.address < m2.address + m2.size)"
      " ORDER BY h.seq"));
}

static bool is_int(sqlite3_stmt *st, int col)
{
  return sqlite3_column_type(st, col) == SQLITE_INTEGER;
}

bool host_accesses_next(struct db_cursor *c, struct host_access *a)
{
  if (!db_cursor_step(c))
    return false;
  sqlite3_stmt *st = c->st;
  const char *op = db_text(st, 8);
  *a = (struct host_access){
      .seq = db_int(st, 15),
      .kind = db_text(st, 0),
      .stack = db_int(st, 1),
      .pystack = db_int(st, 2),
      .address = db_int(st, 4),
      .copy_seq = db_int(st, 3),
      .api = db_text(st, 14),
      .device = db_null(st, 13) ? -1 : db_int(st, 13),
      .has_stream = !db_null(st, 6),
      .stream = db_int(st, 6),
      .transfer = db_int(st, 17) != 0,
      .direction = db_text(st, 7),
      .is_memset = op && !strcmp(op, "memset"),
      .bytes = db_int(st, 5),
      .is_kernel = db_int(st, 9) != 0,
      .kname = is_int(st, 10) ? db_int(st, 10) : -1,
      .param = db_null(st, 11) ? -1 : db_int(st, 11),
      .memkind = db_text(st, 12),
      .has_mem_size = is_int(st, 16),
      .mem_size = db_int(st, 16),
  };
  return true;
}

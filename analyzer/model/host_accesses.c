/* host_accesses.c - the host accesses with the device work in flight on
 * them and the allocation they lie in (host_accesses.h): one query. */
#include "model/host_accesses.h"

#include <stdlib.h>
#include <string.h>

#include "cudalens/format.h"


/* the kernel argument of a host access's kernel that points into the
 * allocation: the least parameter with a word in [address, address + size),
 * written once for either table of the words */
#define ARG_PARAM_ROWS                                                         \
  "(SELECT min(a.param) FROM kernel_args a WHERE a.seq = h.copy_seq"           \
  " AND a.value >= m.address AND a.value < m.address + m.size)"
#define ARG_PARAM_BLOB                                                         \
  "(SELECT cl_arg_param(a.args, m.address, m.address + m.size)"                \
  " FROM launch_args a WHERE a.seq = h.copy_seq)"

/* cl_arg_param(ARGS, LO, HI): the least parameter of the words of ARGS (a
 * launch_args blob) whose value is in [LO, HI), compared as SQL compares
 * them (HI may have overflowed into a real); NULL when none */
static void arg_param(sqlite3_context *ctx, int argc, sqlite3_value **v)
{
  (void)argc;
  if (sqlite3_value_type(v[1]) == SQLITE_NULL ||
      sqlite3_value_type(v[2]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  bool ints = sqlite3_value_type(v[1]) == SQLITE_INTEGER &&
              sqlite3_value_type(v[2]) == SQLITE_INTEGER;
  int64_t lo = sqlite3_value_int64(v[1]), hi = sqlite3_value_int64(v[2]);
  double dlo = sqlite3_value_double(v[1]), dhi = sqlite3_value_double(v[2]);
  const unsigned char *p = sqlite3_value_blob(v[0]);
  size_t n = (size_t)sqlite3_value_bytes(v[0]) / CL_LAUNCH_ARG_SIZE;
  int64_t best = -1;
  for (size_t i = 0; p && i < n; i++) {
    unsigned param, offset, flags;
    unsigned long long value;
    cl_launch_arg_get(p + i * CL_LAUNCH_ARG_SIZE, &param, &offset, &flags,
                      &value);
    int64_t x = (int64_t)value;
    bool in = ints ? x >= lo && x < hi : (double)x >= dlo && (double)x < dhi;
    if (in && (best < 0 || param < best))
      best = param;
  }
  if (best < 0)
    sqlite3_result_null(ctx);
  else
    sqlite3_result_int64(ctx, best);
}

struct db_cursor *host_accesses_open(struct cl_db *d)
{
  bool blobs = d->version >= cl_table_until(CL_TABLE_kernel_args);
  if (blobs)
    sqlite3_create_function(d->db, "cl_arg_param", 3,
                            SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                            arg_param, NULL, NULL);
  /* the allocation accessed is the latest one holding the address */
#define HOST_ACCESSES_SQL(arg_param)                                           \
  "SELECT h.kind, coalesce(h.stack, -1), coalesce(h.pystack, -1),"             \
  " h.copy_seq, h.address, coalesce(t.bytes, 0),"                              \
  " coalesce(t.stream, k.stream, c.stream), t.direction, t.op,"                \
  " k.seq IS NOT NULL, k.name, " arg_param ","                                 \
  " m.kind, c.device, ap.name, h.seq, m.size, t.seq IS NOT NULL"               \
  " FROM host_accesses h LEFT JOIN transfers t ON t.seq = h.copy_seq"          \
  " LEFT JOIN calls c ON c.seq = h.copy_seq"                                   \
  " LEFT JOIN api ap ON ap.id = c.api"                                         \
  " LEFT JOIN kernels k ON k.seq = h.copy_seq"                                 \
  " LEFT JOIN memory m ON m.seq = (SELECT max(m2.seq) FROM memory m2"          \
  "  WHERE m2.op = 'alloc' AND m2.seq < h.seq AND m2.address <= h.address"     \
  "  AND h.address < m2.address + m2.size)"                                    \
  " ORDER BY h.seq"
  return db_cursor_open(d, db_prepare(d, blobs ? HOST_ACCESSES_SQL(ARG_PARAM_BLOB)
                                               : HOST_ACCESSES_SQL(ARG_PARAM_ROWS)));
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

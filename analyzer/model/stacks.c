/* stacks.c - the modules, stacks and Python stacks of a recording for the
 * call-site resolver (stacks.h); the cells' types are checked here. */
#include "model/stacks.h"

#include <stdlib.h>

#include "cudalens/tables.h"
#include "model/names.h"
#include "util.h"

static const char STACK_SQL[] = "SELECT frames FROM stacks WHERE id=?1";

/* stacks.frames: the addresses as 8-byte little-endian words, innermost
 * first (shim/writer_db.c); a cell that is not a BLOB is no stack */
static size_t stack_frames(void *arg, int64_t id, uint64_t **frames)
{
  struct cl_db *d = arg;
  sqlite3_stmt *st = db_cached(d, STACK_SQL);
  *frames = NULL;
  if (!st)
    return 0;
  sqlite3_bind_int64(st, 1, id);
  if (!db_step(d, st) || sqlite3_column_type(st, 0) != SQLITE_BLOB)
    return 0;
  const unsigned char *b = sqlite3_column_blob(st, 0);
  size_t n = (size_t)sqlite3_column_bytes(st, 0) / 8;
  uint64_t *v = xcalloc(n, sizeof *v);
  for (size_t i = 0; i < n; i++)
    for (int k = 7; k >= 0; k--)
      v[i] = v[i] << 8 | b[i * 8 + (size_t)k];
  *frames = v;
  return n;
}

static const char *pystack_text(void *arg, int64_t id)
{
  return names_string(arg, id);
}

static void call_ids(void *arg, int64_t seq, int64_t *stack, int64_t *pystack)
{
  call_stacks(arg, seq, stack, pystack);
}

/* the modules table in load order; a row whose path is not text or whose
 * addresses are not integers describes no object and is left out */
static struct sym_module *read_modules(struct cl_db *d, size_t *n)
{
  struct sym_module *v = NULL;
  size_t cap = 0;
  *n = 0;
  sqlite3_stmt *st =
      db_prepare_table(d, CL_TABLE_modules, CL_ALL_COLS, "ORDER BY id");
  while (db_step(d, st)) {
    if (sqlite3_column_type(st, CL_COL_modules_path) != SQLITE_TEXT ||
        sqlite3_column_type(st, CL_COL_modules_start) != SQLITE_INTEGER ||
        sqlite3_column_type(st, CL_COL_modules_end) != SQLITE_INTEGER ||
        sqlite3_column_type(st, CL_COL_modules_bias) != SQLITE_INTEGER)
      continue;
    GROW(v, cap, *n + 1);
    v[(*n)++] = (struct sym_module){
        .path = xstrdup(db_text(st, CL_COL_modules_path)),
        .start = (uint64_t)db_int(st, CL_COL_modules_start),
        .end = (uint64_t)db_int(st, CL_COL_modules_end),
        .bias = (uint64_t)db_int(st, CL_COL_modules_bias),
        .build_id = xstrdup(db_text(st, CL_COL_modules_build_id)),
    };
  }
  db_finalize(st);
  return v;
}

struct callsites *stacks_callsites(struct cl_db *d)
{
  size_t n;
  struct sym_module *mods = read_modules(d, &n);
  struct callsite_source src = {mods, n, d, stack_frames, pystack_text,
                                call_ids};
  struct callsites *cs = callsites_new(&src);
  for (size_t i = 0; i < n; i++) {
    free((char *)mods[i].path);
    free((char *)mods[i].build_id);
  }
  free(mods);
  return cs;
}

/* test_model.c - unit test of the model's lookups that the checks use
 * instead of SQL of their own (analyzer/model/names.c, calls.c): on the
 * recording given, every strings row, every call (and a seq that is none)
 * and the facts of all calls, each compared with a query written here
 * directly against the recording, as the checks wrote them before.
 *
 *   test_model [--sql-facts] RECORDING.db
 *
 * --sql-facts: the recording is one whose calls replay.c cannot sum up
 * exactly (a value that is not an integer), so calls_facts must come from
 * its SQL fallback. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/calls.h"
#include "model/db.h"
#include "model/names.h"
#include "sites/demangle.h"
#include "tests/unit/unit.h"

static bool same_str(const char *a, const char *b)
{
  return a == b || (a && b && !strcmp(a, b));
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql)
{
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "test_model: %s: %s\n", sql, sqlite3_errmsg(db));
    exit(2);
  }
  return st;
}

static int64_t col_or(sqlite3_stmt *st, int c, int64_t none)
{
  return sqlite3_column_type(st, c) == SQLITE_NULL ? none
                                                   : sqlite3_column_int64(st, c);
}

/* every string, twice: the same text, the same pointer (read once) */
static void test_names(struct cl_db *d)
{
  sqlite3_stmt *st = prep(d->db, "SELECT id, value FROM strings ORDER BY id");
  int n = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    const char *want = (const char *)sqlite3_column_text(st, 1);
    const char *got = names_string(d, id);
    CHECK(same_str(got, want));
    CHECK(names_string(d, id) == got);
    struct kernel_name k = names_kernel(d, id);
    char *dm = cl_demangle(want);
    CHECK(k.mangled == got);
    CHECK(same_str(k.demangled, dm));
    CHECK(names_kernel(d, id).demangled == k.demangled);
    free(dm);
    n++;
  }
  sqlite3_finalize(st);
  CHECK(n > 0);
  CHECK(names_string(d, INT64_MAX) == NULL);
  struct kernel_name none = names_kernel(d, INT64_MAX);
  CHECK(!none.mangled && !none.demangled);
}

/* call_info and call_time_into_run against the queries find_races ran */
static void test_call(struct cl_db *d, sqlite3_stmt *info, sqlite3_stmt *when,
                      int64_t seq)
{
  int before = unit_failures;
  sqlite3_reset(info);
  sqlite3_bind_int64(info, 1, seq);
  bool want = sqlite3_step(info) == SQLITE_ROW;
  struct call_info ci;
  bool got = call_info(d, seq, &ci);
  CHECK(got == want);
  if (got && want) {
    CHECK(same_str(ci.api, (const char *)sqlite3_column_text(info, 0)));
    CHECK(ci.stack == col_or(info, 1, -1));
    CHECK(ci.pystack == col_or(info, 2, -1));
    const char *kn = (const char *)sqlite3_column_text(info, 3);
    CHECK(same_str(ci.kname >= 0 ? names_string(d, ci.kname) : NULL, kn));
    CHECK(same_str(ci.direction, (const char *)sqlite3_column_text(info, 4)));
    CHECK(ci.bytes == sqlite3_column_int64(info, 5));
  }
  sqlite3_reset(when);
  sqlite3_bind_int64(when, 1, seq);
  int64_t t = -1;
  if (sqlite3_step(when) == SQLITE_ROW && col_or(when, 0, -1) >= 0)
    t = sqlite3_column_int64(when, 0);
  CHECK(call_time_into_run(d, seq) == t);
  if (unit_failures > before)
    fprintf(stderr, "  (call %lld)\n", (long long)seq);
}

static void test_calls(struct cl_db *d)
{
  sqlite3_stmt *info = prep(
      d->db, "SELECT a.name, c.stack, c.pystack, s.value, t.direction, t.bytes"
             " FROM calls c JOIN api a ON a.id = c.api"
             " LEFT JOIN kernels k ON k.seq = c.seq"
             " LEFT JOIN strings s ON s.id = k.name"
             " LEFT JOIN transfers t ON t.seq = c.seq WHERE c.seq = ?");
  sqlite3_stmt *when = prep(
      d->db, "SELECT c.start_ns - coalesce((SELECT CAST(value AS INTEGER)"
             " FROM meta WHERE key = 'start_ns'), (SELECT min(start_ns)"
             " FROM calls)) FROM calls c WHERE c.seq = ?");
  sqlite3_stmt *st = prep(d->db, "SELECT seq FROM calls ORDER BY seq");
  int64_t last = 0;
  while (sqlite3_step(st) == SQLITE_ROW)
    test_call(d, info, when, last = sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  test_call(d, info, when, last + 1000); /* no such call */
  test_call(d, info, when, -1);
  sqlite3_finalize(info);
  sqlite3_finalize(when);
}

/* calls_facts against SQL: the replay's facts or the SQL fallback alike */
static void test_facts(struct cl_db *d)
{
  const struct calls_facts *f = calls_facts(d);
  CHECK(f != NULL);
  if (!f)
    return;
  sqlite3_stmt *st = prep(d->db, "SELECT count(*), count(DISTINCT tid),"
                                 " min(start_ns), max(end_ns) FROM calls");
  if (sqlite3_step(st) == SQLITE_ROW) {
    CHECK(f->calls == sqlite3_column_int64(st, 0));
    CHECK(f->threads == sqlite3_column_int64(st, 1));
    CHECK(f->has_start == (sqlite3_column_type(st, 2) != SQLITE_NULL) &&
              (!f->has_start || f->min_start == sqlite3_column_int64(st, 2)));
    CHECK(f->has_end == (sqlite3_column_type(st, 3) != SQLITE_NULL) &&
              (!f->has_end || f->max_end == sqlite3_column_int64(st, 3)));
  }
  sqlite3_finalize(st);
  st = prep(d->db, "SELECT min(c.seq) FROM calls c JOIN api a ON a.id = c.api"
                   " WHERE a.op IN ('kernel', 'graph-launch') AND c.result = 0");
  sqlite3_step(st);
  CHECK(f->first_kernel == col_or(st, 0, INT64_MAX));
  sqlite3_finalize(st);
}

int main(int argc, char **argv)
{
  bool sql_facts = argc == 3 && !strcmp(argv[1], "--sql-facts");
  if (argc != 2 + sql_facts) {
    fputs("usage: test_model [--sql-facts] RECORDING.db\n", stderr);
    return 2;
  }
  struct cl_db d;
  char *err = NULL;
  if (db_open(&d, argv[argc - 1], &err) < 0) {
    fprintf(stderr, "test_model: %s\n", err);
    return 2;
  }
  test_names(&d);
  test_calls(&d);
  CHECK((replay_calls_facts(&d) == NULL) == sql_facts);
  test_facts(&d);
  db_close(&d);
  UNIT_DONE();
}

/* sql2db.c - test helper: builds a recording from hand-written SQL.
 *
 *   sql2db [--bare] [--wal-leftover] [--schema N | --footprints] OUT.db
 *          [IN.sql ...]
 *
 * Creates OUT.db (replacing it) with the cudalens schema (CL_SCHEMA_SQL,
 * PRAGMA user_version = CL_SCHEMA_VERSION), then runs each IN.sql (standard
 * input when none).  --bare skips the schema (for "not a recording"
 * cases).  --schema N writes a recording of schema N instead, as an older
 * recorder did (cl_schema_sql_of).
 *
 * The SQL writes a launch's kernel argument words as kernel_args rows (and
 * uninit_params), one a word, whatever the schema: in a recording of schema
 * 6 or later, where launch_args holds them (a blob a launch) and kernel_args
 * is a view, they go into temporary tables of those names (which hide the
 * views), put into launch_args as the recorder puts them when the SQL has
 * run.  --wal-leftover writes everything in WAL mode without
 * checkpointing and exits without closing the database, leaving the data
 * in OUT.db-wal, like a recorder killed mid-run.  --footprints makes a
 * footprint file instead (cl_footprint_schema_sql, CL_FOOTPRINT_VERSION):
 * the fixtures of cudalens-report --footprints. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudalens/format.h"

static char *slurp(FILE *f)
{
  size_t n = 0, cap = 1 << 16;
  char *s = malloc(cap);
  size_t r;
  while (s && (r = fread(s + n, 1, cap - n - 1, f)) > 0) {
    n += r;
    if (cap - n < 2)
      s = realloc(s, cap *= 2);
  }
  if (s)
    s[n] = 0;
  return s;
}

static void run(sqlite3 *db, const char *sql, const char *what)
{
  char *err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "sql2db: %s: %s\n", what, err ? err : "error");
    exit(1);
  }
}

/* the words of temp.kernel_args (and temp.uninit_params) into launch_args,
 * a row a launch, as the recorder writes them (shim/writer_db.c) */
static void put_launch_args(sqlite3 *db)
{
  sqlite3_stmt *sel, *ins;
  if (sqlite3_prepare_v2(db,
                         "SELECT k.seq, k.param, k.offset, k.value,"
                         " u.seq IS NOT NULL FROM temp.kernel_args k"
                         " LEFT JOIN temp.uninit_params u ON u.seq = k.seq"
                         " AND u.param = k.param ORDER BY k.seq, k.param,"
                         " k.offset", -1, &sel, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT INTO main.launch_args VALUES(?1, ?2)", -1,
                         &ins, NULL) != SQLITE_OK) {
    fprintf(stderr, "sql2db: launch_args: %s\n", sqlite3_errmsg(db));
    exit(1);
  }
  static unsigned char words[1 << 20];
  size_t n = 0;
  sqlite3_int64 seq = 0;
  for (int rc = sqlite3_step(sel);; rc = sqlite3_step(sel)) {
    if (n && (rc != SQLITE_ROW || sqlite3_column_int64(sel, 0) != seq)) {
      sqlite3_bind_int64(ins, 1, seq);
      sqlite3_bind_blob(ins, 2, words, (int)n, SQLITE_STATIC);
      if (sqlite3_step(ins) != SQLITE_DONE) {
        fprintf(stderr, "sql2db: launch_args: %s\n", sqlite3_errmsg(db));
        exit(1);
      }
      sqlite3_reset(ins);
      n = 0;
    }
    if (rc != SQLITE_ROW)
      break;
    seq = sqlite3_column_int64(sel, 0);
    if (n + CL_LAUNCH_ARG_SIZE > sizeof words) {
      fputs("sql2db: launch_args: too many words in a launch\n", stderr);
      exit(1);
    }
    cl_launch_arg_put(words + n, (unsigned)sqlite3_column_int(sel, 1),
                      (unsigned)sqlite3_column_int(sel, 2),
                      sqlite3_column_int(sel, 4) ? CL_LAUNCH_ARG_UNINIT : 0,
                      (unsigned long long)sqlite3_column_int64(sel, 3));
    n += CL_LAUNCH_ARG_SIZE;
  }
  sqlite3_finalize(sel);
  sqlite3_finalize(ins);
  run(db, "DROP TABLE temp.kernel_args; DROP TABLE temp.uninit_params;",
      "launch_args");
}

int main(int argc, char **argv)
{
  int bare = 0, wal = 0, fp = 0, i = 1, version = CL_SCHEMA_VERSION;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    if (strcmp(argv[i], "--bare") == 0)
      bare = 1;
    else if (strcmp(argv[i], "--wal-leftover") == 0)
      wal = 1;
    else if (strcmp(argv[i], "--schema") == 0 && i + 1 < argc)
      version = atoi(argv[++i]);
    else if (strcmp(argv[i], "--footprints") == 0)
      fp = 1;
    else {
      fprintf(stderr, "sql2db: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (i >= argc) {
    fputs("usage: sql2db [--bare] [--wal-leftover] [--schema N | --footprints]"
          " OUT.db [IN.sql ...]\n", stderr);
    return 2;
  }
  const char *out = argv[i++];
  static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
  for (size_t k = 0; k < 4; k++) {
    char p[4096];
    snprintf(p, sizeof p, "%s%s", out, sfx[k]);
    unlink(p);
  }
  sqlite3 *db;
  if (sqlite3_open(out, &db) != SQLITE_OK) {
    fprintf(stderr, "sql2db: %s: %s\n", out, sqlite3_errmsg(db));
    return 1;
  }
  if (wal) {
    run(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;", "wal");
  }
  run(db, "BEGIN", "begin");
  int blobs = !bare && !fp && version >= cl_table_until(CL_TABLE_kernel_args);
  if (!bare) {
    static char schema[16384];
    if (!fp && cl_schema_sql_of(schema, sizeof schema, version) < 0) {
      fputs("sql2db: no schema\n", stderr);
      return 1;
    }
    run(db, fp ? cl_footprint_schema_sql() : schema, "schema");
    char v[64];
    snprintf(v, sizeof v, "PRAGMA user_version=%d",
             fp ? CL_FOOTPRINT_VERSION : version);
    run(db, v, "user_version");
  }
  if (blobs)
    run(db,
        "CREATE TEMP TABLE kernel_args(seq INTEGER NOT NULL, param INTEGER NOT"
        " NULL, offset INTEGER NOT NULL, value INTEGER NOT NULL,"
        " PRIMARY KEY(seq, param, offset)) WITHOUT ROWID;"
        "CREATE TEMP TABLE uninit_params(seq INTEGER NOT NULL, param INTEGER"
        " NOT NULL, PRIMARY KEY(seq, param)) WITHOUT ROWID;",
        "kernel_args");
  if (i >= argc) {
    char *sql = slurp(stdin);
    run(db, sql ? sql : "", "<stdin>");
    free(sql);
  }
  for (; i < argc; i++) {
    FILE *f = fopen(argv[i], "r");
    if (!f) {
      perror(argv[i]);
      return 1;
    }
    char *sql = slurp(f);
    fclose(f);
    run(db, sql ? sql : "", argv[i]);
    free(sql);
  }
  if (blobs)
    put_launch_args(db);
  run(db, "COMMIT", "commit");
  if (wal) {
    fflush(NULL);
    _exit(0); /* no close: no checkpoint, the -wal file stays */
  }
  if (sqlite3_close(db) != SQLITE_OK) {
    fprintf(stderr, "sql2db: %s: close failed\n", out);
    return 1;
  }
  return 0;
}

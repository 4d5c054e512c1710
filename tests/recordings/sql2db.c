/* sql2db.c - test helper: builds a recording from hand-written SQL.
 *
 *   sql2db [--bare] [--wal-leftover] [--footprints] OUT.db [IN.sql ...]
 *
 * Creates OUT.db (replacing it) with the cudalens schema (CL_SCHEMA_SQL,
 * PRAGMA user_version = CL_SCHEMA_VERSION), then runs each IN.sql (standard
 * input when none).  --bare skips the schema (for "not a recording"
 * cases).  --wal-leftover writes everything in WAL mode without
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

int main(int argc, char **argv)
{
  int bare = 0, wal = 0, fp = 0, i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    if (strcmp(argv[i], "--bare") == 0)
      bare = 1;
    else if (strcmp(argv[i], "--wal-leftover") == 0)
      wal = 1;
    else if (strcmp(argv[i], "--footprints") == 0)
      fp = 1;
    else {
      fprintf(stderr, "sql2db: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (i >= argc) {
    fputs("usage: sql2db [--bare] [--wal-leftover] [--footprints] OUT.db"
          " [IN.sql ...]\n", stderr);
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
  if (!bare) {
    run(db, fp ? cl_footprint_schema_sql() : CL_SCHEMA_SQL, "schema");
    char v[64];
    snprintf(v, sizeof v, "PRAGMA user_version=%d",
             fp ? CL_FOOTPRINT_VERSION : CL_SCHEMA_VERSION);
    run(db, v, "user_version");
  }
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

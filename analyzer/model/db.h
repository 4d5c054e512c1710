/* db.h - opening a cudalens recording read-only, checking that it is one
 * (and one this analyzer can read), and checked query helpers.  Query
 * errors are fatal: they print one line and exit 2. */
#ifndef CL_REPORT_DB_H
#define CL_REPORT_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

struct cl_db {
  sqlite3 *db;
  const char *path;   /* as given by the user, for messages */
  const char *copy_dir; /* temporary copy of a WAL recording, else NULL */
  int version;        /* PRAGMA user_version */
  struct replay_log *calls_log; /* replay.c's, read at the first replay */
};

/* Open and validate PATH.  On failure returns -1 and sets *err to a
 * malloc'd message naming the problem (without the program name). */
int db_open(struct cl_db *d, const char *path, char **err);
void db_close(struct cl_db *d);

/* Print "cudalens-report: PATH: WHAT: <sqlite error>" and exit 2. */
void db_fatal(struct cl_db *d, const char *what) __attribute__((noreturn));

sqlite3_stmt *db_prepare(struct cl_db *d, const char *sql);
/* true while there is a row; false when done */
bool db_step(struct cl_db *d, sqlite3_stmt *st);
void db_finalize(sqlite3_stmt *st);

/* column access; NULL columns read as NULL / 0 / false */
const char *db_text(sqlite3_stmt *st, int col);
int64_t db_int(sqlite3_stmt *st, int col);
bool db_null(sqlite3_stmt *st, int col);

/* does the recording have table NAME?  (Tables added after schema 1 are
 * absent from older recordings.) */
bool db_has_table(struct cl_db *d, const char *name);

/* meta.value for KEY, malloc'd, or NULL when absent */
char *db_meta(struct cl_db *d, const char *key);

#endif

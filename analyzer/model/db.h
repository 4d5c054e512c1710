/* db.h - opening a cudalens recording read-only, checking that it is one
 * (and one this analyzer can read), and checked query helpers.  Query
 * errors are fatal: they print one line and exit 2. */
#ifndef CL_REPORT_DB_H
#define CL_REPORT_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdint.h>

#include "cudalens/tables.h"

struct cl_db {
  sqlite3 *db;
  const char *path;   /* as given by the user, for messages */
  const char *copy_dir; /* temporary copy of a WAL recording, else NULL */
  int version;        /* PRAGMA user_version */
  struct replay_log *calls_log; /* replay.c's, read at the first replay */
  struct names *names;  /* names.c's strings, read once each */
  struct db_cached { const char *sql; sqlite3_stmt *st; } cached[8];
  int ncached;        /* db_cached's statements */
  struct calls_facts *facts_sql; /* calls.c's, when replay's are not exact */
  char *open_name;    /* the file or URI the connection opened, */
  int open_flags;     /* with these flags (for db_open_twin) */
  struct stat identity; /* of the file at PATH when opened */
  bool soft;          /* a twin's: a query error sets failed, no exit */
  bool failed;
};

/* Open and validate PATH.  On failure returns -1 and sets *err to a
 * malloc'd message naming the problem (without the program name). */
int db_open(struct cl_db *d, const char *path, char **err);
/* The same for a footprint file (tables.def, CL_FP_TABLE; meta format
 * cudalens-footprint, CL_FOOTPRINT_VERSION), checked as a recording is */
int db_open_footprints(struct cl_db *d, const char *path, char **err);
void db_close(struct cl_db *d);

/* A second connection TWIN to D's recording, for another thread to read
 * with: the same file opened the same way, in a read transaction that sees
 * the recording as D's does (D's read lock, taken here, keeps writers out
 * until D's transaction ends).  Its query errors set TWIN->failed (the
 * functions below return no row, db_prepare NULL) instead of exiting.
 * Returns -1 when that cannot be promised: a recording in WAL mode (whose
 * readers may each see another snapshot), a file that is no longer the
 * one opened, an SQLite built without threads.  db_close(TWIN) closes it. */
int db_open_twin(struct cl_db *d, struct cl_db *twin);

/* Print "cudalens-report: PATH: WHAT: <sqlite error>" and exit 2. */
void db_fatal(struct cl_db *d, const char *what) __attribute__((noreturn));

sqlite3_stmt *db_prepare(struct cl_db *d, const char *sql);
/* SELECT of the columns COLS (CL_COLS(t, column) | ..., or CL_ALL_COLS) of
 * table T in the order of tables.def (column C the result column
 * CL_RANK(COLS, T, C); CL_COL_<T>_<C> when all), then TAIL (e.g. "ORDER BY
 * seq") */
sqlite3_stmt *db_prepare_table(struct cl_db *d, enum cl_table t,
                               unsigned long long cols, const char *tail);
/* the statement of SQL, a string literal (known by its address), prepared
 * once per connection and reset, with no bindings, for each use; the
 * model's lookups of one row use it (db_close finalizes it) */
sqlite3_stmt *db_cached(struct cl_db *d, const char *sql);
/* a query a model cursor reads row by row (host_accesses.h, host_order.h,
 * collectives.h): db_cursor_open takes ST (NULL: no rows), and
 * db_cursor_step says whether there is a row, which the cursor's own next
 * function decodes from C->st */
struct db_cursor {
  struct cl_db *d;
  sqlite3_stmt *st;
};
struct db_cursor *db_cursor_open(struct cl_db *d, sqlite3_stmt *st);
bool db_cursor_step(struct db_cursor *c);
void db_cursor_close(struct db_cursor *c);
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

/* the stack and pystack of call SEQ (-1 when NULL or absent) */
void call_stacks(struct cl_db *d, int64_t seq, int64_t *stack,
                 int64_t *pystack);

#endif

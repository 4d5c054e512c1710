/* unit_db.h - the unit tests' one way to ask a recording a question: the
 * first column of the first row of SQL, as an integer, or -1 (said on
 * stderr) when the query fails. */
#ifndef CUDALENS_UNIT_DB_H
#define CUDALENS_UNIT_DB_H
#include <sqlite3.h>
#include <stdio.h>

static inline long long query(sqlite3 *db, const char *sql)
{
  sqlite3_stmt *st;
  long long v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  else
    fprintf(stderr, "query failed: %s: %s\n", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return v;
}
#endif

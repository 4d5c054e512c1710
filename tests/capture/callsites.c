/* callsites.c - prints the resolved call site of every call of a recording,
 * one line per call, in seq order, for the end-to-end tests (tests/capture)
 * and the GPU suite (tests/gpu) to grep:
 *
 *   callsites DB
 *   SEQ API FILE:LINE FUNCTION
 *
 * API is the api table's name (e.g. cudaMalloc_v3020).  FILE is the source
 * file as the debug info names it.  Without line info FILE:LINE is
 * MODULE+0xOFFSET; without a user frame it is `?`; an unknown function
 * is `?`.  FUNCTION comes last since demangled names hold blanks.  Uses the
 * analyzer's resolver (analyzer/sites/callsite.c), so it sees what
 * cudalens-report sees, reading the recording as it does (db_open, model/stacks.c).
 * Exit status: 0, 2 when the database cannot be read. */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>

#include "model/stacks.h"
#include "sites/callsite.h"

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: callsites DB\n");
    return 2;
  }
  struct cl_db d;
  char *err;
  if (db_open(&d, argv[1], &err) < 0) {
    fprintf(stderr, "callsites: %s\n", err);
    return 2;
  }
  sqlite3 *db = d.db;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT c.seq, a.name, c.stack FROM calls c "
                         "JOIN api a ON a.id = c.api ORDER BY c.seq",
                         -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "callsites: %s: %s\n", argv[1], sqlite3_errmsg(db));
    db_close(&d);
    return 2;
  }
  struct callsites *cs = stacks_callsites(&d);
  while (sqlite3_step(st) == SQLITE_ROW) {
    int64_t seq = sqlite3_column_int64(st, 0);
    const unsigned char *api = sqlite3_column_text(st, 1);
    struct callsite c;
    int found = sqlite3_column_type(st, 2) != SQLITE_NULL &&
                callsite_resolve(cs, sqlite3_column_int64(st, 2), &c) == 0;
    printf("%" PRId64 " %s ", seq, api ? (const char *)api : "?");
    if (!found)
      printf("?");
    else if (c.file && c.line > 0)
      printf("%s:%d", c.file, c.line);
    else
      printf("%s+0x%" PRIx64, c.module ? c.module : "?", c.offset);
    printf(" %s\n", found && c.function ? c.function : "?");
  }
  sqlite3_finalize(st);
  callsites_free(cs);
  db_close(&d);
  return 0;
}

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
 * cudalens-report sees.  Exit status: 0, 2 when the database cannot be read. */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>

#include "sites/callsite.h"

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: callsites DB\n");
    return 2;
  }
  sqlite3 *db;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    fprintf(stderr, "callsites: cannot open %s: %s\n", argv[1],
            sqlite3_errmsg(db));
    sqlite3_close(db);
    return 2;
  }
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT c.seq, a.name, c.stack FROM calls c "
                         "JOIN api a ON a.id = c.api ORDER BY c.seq",
                         -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "callsites: %s: %s\n", argv[1], sqlite3_errmsg(db));
    sqlite3_close(db);
    return 2;
  }
  struct callsites *cs = callsites_new(db);
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
  sqlite3_close(db);
  return 0;
}

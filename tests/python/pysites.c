/* pysites.c - prints the call site of every call of a recording as the
 * report resolves it (callsite_resolve_call + callsite_location):
 * "SEQ API FILE:LINE FUNCTION", or "SEQ API MODULE+0xOFFSET", or
 * "SEQ API -"; used by tests/python/pycalls.test. */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>

#include "model/stacks.h"
#include "sites/callsite.h"

int main(int argc, char **argv)
{
  struct cl_db d;
  char *err;
  if (argc != 2) {
    fprintf(stderr, "usage: pysites RECORDING.db\n");
    return 2;
  }
  if (db_open(&d, argv[1], &err) < 0) {
    fprintf(stderr, "pysites: %s\n", err);
    return 2;
  }
  sqlite3 *db = d.db;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT c.seq, a.name FROM calls c JOIN api a"
                         " ON a.id = c.api ORDER BY c.seq",
                         -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "pysites: %s\n", sqlite3_errmsg(db));
    return 2;
  }
  struct callsites *cs = stacks_callsites(&d);
  while (sqlite3_step(st) == SQLITE_ROW) {
    int64_t seq = sqlite3_column_int64(st, 0);
    const char *api = (const char *)sqlite3_column_text(st, 1);
    struct callsite site;
    callsite_resolve_call(cs, seq, &site);
    struct location l = callsite_location(&site);
    printf("%" PRId64 " %s ", seq, api ? api : "?");
    if (l.file)
      printf("%s:%d %s\n", l.file, l.line, l.function ? l.function : "?");
    else if (l.module)
      printf("%s+0x%" PRIx64 "\n", l.module, l.offset);
    else
      printf("-\n");
  }
  sqlite3_finalize(st);
  callsites_free(cs);
  db_close(&d);
  return 0;
}

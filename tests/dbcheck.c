/* dbcheck.c - checks a recording against an expectation file, for the
 * end-to-end tests (simulated runtime in CI, real GPU in the GPU suite).
 *
 *   dbcheck DB FILE [NAME=VALUE ...]
 *
 * Each non-comment line of FILE is `description: SQL`; the SQL must return a
 * single value 1 for the check to pass.  ${NAME} in the SQL is replaced by
 * the value given on the command line (e.g. a source line number).  Prints
 * one ok/FAIL line per check (with the query's actual value on failure) and
 * exits 1 when any check failed, 2 on bad input. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nvars;
static char **vars;

static int substitute(const char *in, char *out, size_t outsz)
{
  size_t n = 0;
  while (*in) {
    const char *close;
    if (in[0] == '$' && in[1] == '{' && (close = strchr(in, '}'))) {
      size_t len = (size_t)(close - in - 2);
      const char *val = NULL;
      for (int i = 0; i < nvars; i++)
        if (!strncmp(vars[i], in + 2, len) && vars[i][len] == '=')
          val = vars[i] + len + 1;
      if (!val) {
        fprintf(stderr, "dbcheck: no value for ${%.*s}\n", (int)len, in + 2);
        return -1;
      }
      size_t vl = strlen(val);
      if (n + vl >= outsz)
        return -1;
      memcpy(out + n, val, vl);
      n += vl;
      in = close + 1;
    } else {
      if (n + 1 >= outsz)
        return -1;
      out[n++] = *in++;
    }
  }
  out[n] = 0;
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: dbcheck DB FILE [NAME=VALUE ...]\n");
    return 2;
  }
  nvars = argc - 3;
  vars = argv + 3;
  sqlite3 *db;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    fprintf(stderr, "dbcheck: cannot open %s\n", argv[1]);
    return 2;
  }
  FILE *f = fopen(argv[2], "r");
  if (!f) {
    fprintf(stderr, "dbcheck: cannot open %s\n", argv[2]);
    return 2;
  }
  char line[8192], sql[16384];
  int failed = 0, checks = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *colon = strstr(line, ": ");
    if (!line[0] || line[0] == '#' || !colon)
      continue;
    *colon = 0;
    if (substitute(colon + 2, sql, sizeof sql))
      return 2;
    sqlite3_stmt *st;
    const char *got = "(error)";
    char buf[256] = "";
    int ok = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
      snprintf(buf, sizeof buf, "(%s)", sqlite3_errmsg(db));
      got = buf;
    } else {
      if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(buf, sizeof buf, "%s", t ? (const char *)t : "NULL");
        got = buf;
        ok = t && !strcmp((const char *)t, "1");
      } else {
        got = "(no row)";
      }
      sqlite3_finalize(st);
    }
    checks++;
    if (ok) {
      printf("ok: %s\n", line);
    } else {
      failed++;
      printf("FAIL: %s: got %s\n      %s\n", line, got, sql);
    }
  }
  fclose(f);
  sqlite3_close(db);
  printf("%d checks, %d failed\n", checks, failed);
  return failed ? 1 : checks ? 0 : 2;
}

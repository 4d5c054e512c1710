/* fuzz_report.c - a mutation fuzzer of cudalens-report.
 *
 *   fuzz_report [-n RUNS] [-s SEED] [-t SECONDS] [-o CRASHDIR] [-q] [-v]
 *               RECORDING.db|REDUCED.cldr...
 *
 * Each run takes one of the seed recordings, mutates it, writes it to a
 * private work directory and runs the report on it in a forked child (the
 * report's own main(), linked in through report_entry.c: no exec, no
 * start-up per input).  Mutations are SQLite page-level (bytes, bits,
 * extreme big-endian integers, copied, zeroed or truncated pages) or
 * SQL-level through SQLite (extreme integers, NULLs, wrong types, odd
 * strings with control characters and invalid UTF-8, deleted or duplicated
 * rows, dropped tables and columns, a view in place of a table, a wrong
 * user_version), several at a time.  A run fails when the report is killed
 * by a signal (a crash, or the -t timeout: a hang), exits with a status
 * other than 0, 1 or 2, writes anything to stderr unless it exits 2, or
 * exits 2 with other than one "cudalens-report: " line on stderr and
 * nothing on stdout; a text or github report (the formats are text, json,
 * sarif, github, perfetto, html) must not hold raw control characters.
 * A failing input is kept in CRASHDIR (default: the current directory) as
 * fail-SEED-RUN.db with a line saying why.  Runs are reproducible: run R of
 * seed S depends on S and R only (-s S -r R -n 1 replays it).  Exit status
 * 0 when every run passed, 1 when one failed, 2 on bad usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cudalens/fnv.h"
#include "output/json.h"

/* report_entry.c: analyzer/report_main.c with its main() renamed */
int cudalens_report_main(int argc, char **argv);

/* sanitizer reports must not read as the report's exit status 1 */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "exitcode=86"; }
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
  return "exitcode=87:print_stacktrace=1";
}

struct seed {
  const char *path;
  unsigned char *bytes;
  size_t len;
};

struct input {
  unsigned char *bytes;
  size_t len, cap;
  char what[512]; /* the mutations, for the failure message */
};

static uint64_t rng_state;

static uint64_t rnd(void)
{
  /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static void note(struct input *in, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(struct input *in, const char *fmt, ...)
{
  size_t n = strlen(in->what);
  if (n + 2 >= sizeof in->what)
    return;
  if (n)
    in->what[n++] = ';', in->what[n++] = ' ', in->what[n] = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(in->what + n, sizeof in->what - n, fmt, ap);
  va_end(ap);
}

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("fuzz_report: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

static unsigned char *read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    die("%s: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0, r;
  unsigned char *b = malloc(cap);
  while (b && (r = fread(b + n, 1, cap - n, f)) > 0)
    if ((n += r) == cap)
      b = realloc(b, cap *= 2);
  if (!b || ferror(f))
    die("%s: cannot read", path);
  fclose(f);
  *len = n;
  return b;
}

static void write_file(const char *path, const unsigned char *b, size_t len)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || (len && write(fd, b, len) != (ssize_t)len) || close(fd) < 0)
    die("%s: cannot write: %s", path, strerror(errno));
}

/* ---- page-level mutations ------------------------------------------- */

static size_t page_size(const struct input *in)
{
  if (in->len < 100)
    return 4096;
  size_t p = (size_t)in->bytes[16] << 8 | in->bytes[17];
  return p == 1 ? 65536 : p >= 512 ? p : 4096;
}

static const uint64_t extremes[] = {
    0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
    0xffffffff, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
    0xffffffffffffffffULL};

static void mutate_bytes(struct input *in)
{
  if (!in->len)
    return;
  size_t ps = page_size(in), npages = (in->len + ps - 1) / ps;
  size_t page = below(npages), base = page * ps;
  size_t end = base + ps < in->len ? base + ps : in->len;
  switch (below(7)) {
  case 0: { /* flip bits */
    size_t n = 1 + below(8);
    for (size_t i = 0; i < n; i++)
      in->bytes[base + below(end - base)] ^= (unsigned char)(1u << below(8));
    note(in, "flip %zu bits in page %zu", n, page + 1);
    break;
  }
  case 1: { /* random bytes */
    size_t n = 1 + below(16);
    for (size_t i = 0; i < n; i++)
      in->bytes[base + below(end - base)] = (unsigned char)rnd();
    note(in, "%zu random bytes in page %zu", n, page + 1);
    break;
  }
  case 2: { /* an extreme big-endian integer (SQLite's varints and fields) */
    size_t width = (size_t)1 << below(4), at = base + below(end - base);
    uint64_t v = extremes[below(sizeof extremes / sizeof *extremes)];
    for (size_t i = 0; i < width && at + i < in->len; i++)
      in->bytes[at + i] = (unsigned char)(v >> (8 * (width - 1 - i)));
    note(in, "%zu-byte 0x%" PRIx64 " at %zu", width, v, at);
    break;
  }
  case 3: { /* the header: page size, counts, versions, schema cookie */
    size_t at = below(in->len < 100 ? in->len : 100);
    in->bytes[at] = (unsigned char)rnd();
    note(in, "header byte %zu", at);
    break;
  }
  case 4: { /* one page over another */
    size_t from = below(npages) * ps;
    size_t n = ps;
    if (from + n > in->len)
      n = in->len - from;
    if (base + n > in->len)
      n = in->len - base;
    memmove(in->bytes + base, in->bytes + from, n);
    note(in, "page %zu copied over page %zu", from / ps + 1, page + 1);
    break;
  }
  case 5: /* zeroed page */
    memset(in->bytes + base, 0, end - base);
    note(in, "page %zu zeroed", page + 1);
    break;
  default: { /* truncated */
    size_t n = below(in->len);
    if (below(2))
      n = n / ps * ps;
    in->len = n;
    note(in, "truncated to %zu bytes", n);
    break;
  }
  }
}

static void remove_input(void);

/* ---- SQL-level mutations -------------------------------------------- */

static const char *const values[] = {
    "9223372036854775807", "-9223372036854775808", "9223372036854775806",
    "-9223372036854775807", "4611686018427387904", "-4611686018427387904",
    "2147483647", "-2147483648", "4294967296", "0", "-1", "1", "2", "255",
    "NULL", "NULL", "1e308", "-1e308", "0.5", "-0.0", "'x'", "''",
    "'9223372036854775808'", "'12abc'", "x''", "x'00ff'",
    "x'0100000000000000'", "x'ffffffffffffffff00'", "zeroblob(8)",
    "'a' || char(10) || 'b' || char(27) || '[31mred' || char(155)",
    "CAST(x'c3286a80ff' AS TEXT)", "'%s%n%x'", "'../../../../dev/zero'",
    "'/dev/zero'", "'/proc/self/fd/0'", "'[\"a\",'", "'[1,2]'",
    "'[\"\\u0000\",\"\\ud800\"]'", "printf('%.*c', 5000, 'y')",
    "'_Z1fIiEvT_'", "'_ZZZZZZZZ'", "'_Z' || printf('%.*c', 3000, 'N')",
    "'kernel'", "'copy'", "'memset'", "'free'", "'alloc'", "'pinned'",
    "'pageable'", "'htod'", "'dtoh'", "'device'", "'stream'", "'read'",
    "'write'"};

static void exec_note(sqlite3 *db, struct input *in, const char *sql)
{
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
    note(in, "%s", sql);
}

/* fz_random(): SQLite's random(), but from this run's generator, so that
 * runs replay */
static void fz_random(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  (void)argc, (void)argv;
  sqlite3_result_int64(ctx, (sqlite3_int64)(rnd() >> 1));
}

/* a random table and column of DB; false when there is none */
static bool pick_column(sqlite3 *db, char *table, size_t tlen, char *col,
                        size_t clen)
{
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT m.name, p.name FROM sqlite_master m,"
                         " pragma_table_info(m.name) p WHERE m.type='table'"
                         " ORDER BY m.name, p.cid",
                         -1, &st, NULL) != SQLITE_OK)
    return false;
  size_t n = 0;
  while (sqlite3_step(st) == SQLITE_ROW)
    n++;
  sqlite3_reset(st);
  size_t want = below(n);
  bool ok = false;
  for (size_t i = 0; !ok && sqlite3_step(st) == SQLITE_ROW; i++)
    if (i == want) {
      snprintf(table, tlen, "%s", (const char *)sqlite3_column_text(st, 0));
      snprintf(col, clen, "%s", (const char *)sqlite3_column_text(st, 1));
      ok = true;
    }
  sqlite3_finalize(st);
  return ok;
}

static void mutate_sql_once(sqlite3 *db, struct input *in)
{
  char t[128], c[128], sql[8192];
  if (!pick_column(db, t, sizeof t, c, sizeof c))
    return;
  const char *v = values[below(sizeof values / sizeof *values)];
  unsigned k = 2 + (unsigned)below(5);
  static const char *const stats[] = {
      "1", "1 1", "1000000000", "1000000000 1000000000", "0", "-1",
      "18446744073709551616 1", "x", "", "1 1 unordered", "5 2 sz=99999",
      "1 1 noskipscan"};
  const char *stat = stats[below(sizeof stats / sizeof *stats)];
  switch (below(22)) {
  case 0: case 1: case 2: case 3: case 14: case 15:
    snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = %s", t, c, v);
    break;
  case 4: case 5: case 16: case 17: case 18: case 19:
    snprintf(sql, sizeof sql,
             "UPDATE \"%s\" SET \"%s\" = %s WHERE abs(fz_random()) %% %u = 0", t,
             c, v, k);
    break;
  case 6:
    snprintf(sql, sizeof sql,
             below(2) ? "UPDATE \"%s\" SET \"%s\" = -\"%s\""
                      : "UPDATE \"%s\" SET \"%s\" = \"%s\" * 1000003 + 7",
             t, c, c);
    break;
  case 7: /* a value of another row or column */
    snprintf(sql, sizeof sql,
             "UPDATE \"%s\" SET \"%s\" = (SELECT \"%s\" FROM \"%s\""
             " ORDER BY fz_random() LIMIT 1) WHERE abs(fz_random()) %% %u = 0",
             t, c, c, t, k);
    break;
  case 8:
    snprintf(sql, sizeof sql, "DELETE FROM \"%s\" WHERE abs(fz_random()) %% %u = 0",
             t, k);
    break;
  case 9: /* duplicated rows, keys moved */
    snprintf(sql, sizeof sql,
             "INSERT OR IGNORE INTO \"%s\" SELECT * FROM \"%s\"; UPDATE OR IGNORE"
             " \"%s\" SET \"%s\" = \"%s\" + %u", t, t, t, c, c, k);
    break;
  case 10:
    snprintf(sql, sizeof sql, below(2) ? "DROP TABLE \"%s\""
                                       : "ALTER TABLE \"%s\" RENAME TO x_old",
             t);
    break;
  case 11:
    snprintf(sql, sizeof sql,
             below(2) ? "ALTER TABLE \"%s\" DROP COLUMN \"%s\""
                      : "ALTER TABLE \"%s\" RENAME COLUMN \"%s\" TO x_col",
             t, c);
    break;
  case 12: /* a view in place of the table */
    snprintf(sql, sizeof sql,
             "CREATE TABLE x_copy AS SELECT * FROM \"%s\"; DROP TABLE \"%s\";"
             " CREATE VIEW \"%s\" AS SELECT * FROM x_copy%s",
             t, t, t, below(2) ? ", x_copy" : "");
    break;
  case 20: case 21: /* planner statistics (issue 24: planted ones made the
                     * report quadratic) */
    snprintf(sql, sizeof sql,
             "ANALYZE sqlite_master; INSERT INTO sqlite_stat1"
             " SELECT name, NULL, '%s' FROM sqlite_master WHERE type = 'table'"
             " AND name NOT LIKE 'sqlite%%' AND (%u = 0 OR name = '%s');"
             " INSERT INTO sqlite_stat1 SELECT tbl_name, name, '%s' FROM"
             " sqlite_master WHERE type = 'index'",
             stat, (unsigned)below(2), t, stat);
    break;
  default: /* 13 */
    snprintf(sql, sizeof sql, "PRAGMA user_version = %s",
             below(2) ? "0" : below(2) ? "2" : "-1");
    break;
  }
  exec_note(db, in, sql);
}

static void mutate_sql(struct input *in, const char *path)
{
  remove_input();
  write_file(path, in->bytes, in->len);
  sqlite3 *db;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    sqlite3_close(db);
    return;
  }
  sqlite3_create_function(db, "fz_random", 0, SQLITE_UTF8, NULL, fz_random,
                          NULL, NULL);
  /* the seed is a copy: no journal, no sync */
  sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                   " PRAGMA foreign_keys=OFF",
               NULL, NULL, NULL);
  size_t n = 1 + below(3);
  for (size_t i = 0; i < n; i++)
    mutate_sql_once(db, in);
  sqlite3_close(db);
  free(in->bytes);
  in->bytes = read_file(path, &in->len);
  in->cap = in->len;
}

/* ---- reduced results (.cldr): text mutations ------------------------- */

/* A reduced result (analyzer/reduced.h) is text, one record a line, ended
 * by "end CHECKSUM", an FNV-1a of the bytes before it.  The mutations work
 * on lines and on their space-separated fields; most runs then write the
 * checksum again, so that the merge reads what the mutation made of the
 * file rather than stopping at a checksum that does not match. */

static bool is_cldr(const char *path)
{
  size_t n = strlen(path);
  return n > 5 && strcmp(path + n - 5, ".cldr") == 0;
}

/* the line starts of IN (N of them; the last line may lack its newline) */
static size_t *line_starts(const struct input *in, size_t *n)
{
  size_t cap = 64, k = 0;
  size_t *v = malloc(cap * sizeof *v);
  for (size_t i = 0; v && i < in->len; i++)
    if (i == 0 || in->bytes[i - 1] == '\n') {
      if (k == cap)
        v = realloc(v, (cap *= 2) * sizeof *v);
      if (v)
        v[k++] = i;
    }
  if (!v)
    die("out of memory");
  *n = k;
  return v;
}

static size_t line_end(const struct input *in, size_t start)
{
  const unsigned char *nl = memchr(in->bytes + start, '\n', in->len - start);
  return nl ? (size_t)(nl - in->bytes) + 1 : in->len;
}

/* bytes [AT, AT+DEL) of IN replaced by ADD (LEN bytes) */
static void splice_bytes(struct input *in, size_t at, size_t del,
                   const unsigned char *add, size_t len)
{
  size_t need = in->len - del + len;
  if (need > in->cap) {
    in->cap = need + need / 2 + 16;
    if (!(in->bytes = realloc(in->bytes, in->cap)))
      die("out of memory");
  }
  memmove(in->bytes + at + len, in->bytes + at + del, in->len - at - del);
  if (len)
    memcpy(in->bytes + at, add, len);
  in->len = need;
}

/* what a field may become: numbers at and beyond every bound the reader
 * checks, then strings, the first CLDR_WELL_FORMED of them well-formed
 * (reaching the merge), the rest malformed */
static const char *const cldr_numbers[] = {
    "0", "1", "-1", "2", "3", "7", "255", "256", "1000", "1001",
    "2147483647", "-2147483648", "4294967296", "9223372036854775807",
    "-9223372036854775808", "2147483648", "-2147483649",
    "9223372036854775808", "18446744073709551615", "18446744073709551616",
    "00", "+1", "0x10", "1e3", ""};
#define CLDR_IN_RANGE 15 /* of int64_t */
#define CLDR_WELL_FORMED 11
static const char *const cldr_strings[] = {
    "-", "=", "=x", "=%0A%1B[31mred%C2%9B", "=%FF%FE%80", "=a%20b",
    "=collective-mismatch", "=sync-in-loop", "=all-reduce", "=-",
    "=0000000000000000", "=%", "=%0", "=%00", "=%zz", "=%%", "x", ""};

/* the tags of reduced.h's lines */
static const char *const cldr_tags[] = {
    "cudalens-reduced", "report", "stack", "source", "process", "text",
    "json", "finding", "loc", "extra", "kernel", "op", "related", "site",
    "coll", "end"};

/* is line [A, B) of IN a collective ("coll ...")? */
static bool coll_line(const struct input *in, size_t a, size_t b)
{
  return b - a > 5 && !memcmp(in->bytes + a, "coll ", 5);
}

/* One mutation of IN.  GENTLE ones keep the file well-formed, mostly (a
 * number for a number, a well-formed string for a string; collectives
 * deleted, repeated or moved), so that most reach the merge; the others
 * also break its lines, tags, fields and bytes. */
static void mutate_cldr_once(struct input *in, const struct seed *seeds,
                             size_t nseeds, bool gentle)
{
  size_t n;
  size_t *ls = line_starts(in, &n);
  if (!n) {
    free(ls);
    static const char line[] = "cudalens-reduced 1\n";
    splice_bytes(in, 0, 0, (const unsigned char *)line, sizeof line - 1);
    note(in, "an empty file given a first line");
    return;
  }
  size_t li = below(n), a = ls[li], b = line_end(in, a);
  size_t what = below(12);
  if (gentle) {
    /* a field after the header (version, --stack and source are checked
     * first), or a collective deleted (4), repeated (5, 6) or moved (7) */
    what = below(8);
    if (what >= 4) {
      size_t tries = 0;
      while (!coll_line(in, a, b) && tries++ < 64)
        li = below(n), a = ls[li], b = line_end(in, a);
      if (!coll_line(in, a, b))
        what = 0;
    }
    if (what < 4 && n > 4 && li < 4)
      li = 4 + below(n - 4), a = ls[li], b = line_end(in, a);
  }
  switch (what) {
  case 0: case 1: case 2: case 3: { /* one field replaced */
    size_t nf = 1;
    for (size_t i = a; i < b; i++)
      nf += in->bytes[i] == ' ';
    size_t fi = nf > 1 && (gentle || below(8)) ? 1 + below(nf - 1) : below(nf);
    size_t fa = a, k = 0;
    while (k < fi && fa < b)
      k += in->bytes[fa++] == ' ';
    size_t fb = fa;
    while (fb < b && in->bytes[fb] != ' ' && in->bytes[fb] != '\n')
      fb++;
    char buf[6000];
    /* most: a number for a number, a well-formed string for a string */
    bool str = in->bytes[fa] == '=' || (in->bytes[fa] == '-' && fb - fa == 1);
    if (!gentle && !below(4))
      str = below(2);
    size_t nv = str ? (gentle || below(4)
                           ? CLDR_WELL_FORMED
                           : sizeof cldr_strings / sizeof *cldr_strings)
                    : gentle && below(4) ? CLDR_IN_RANGE
                                         : sizeof cldr_numbers / sizeof *cldr_numbers;
    const char *v = str ? cldr_strings[below(nv)] : cldr_numbers[below(nv)];
    if (!below(16) && (str || !gentle)) { /* a long string */
      size_t len = 1 + below(sizeof buf - 2);
      memset(buf, below(2) ? 'y' : '%', len);
      buf[0] = '=';
      buf[len] = 0;
      v = buf;
    }
    splice_bytes(in, fa, fb - fa, (const unsigned char *)v, strlen(v));
    note(in, "line %zu field %zu = '%.40s'", li + 1, fi + 1, v);
    break;
  }
  case 4: /* a line deleted */
    splice_bytes(in, a, b - a, NULL, 0);
    note(in, "line %zu deleted", li + 1);
    break;
  case 5: case 6: { /* a line repeated, here or elsewhere */
    size_t len = b - a, to = below(2) ? b : ls[below(n)];
    unsigned char *copy = malloc(len + 1);
    memcpy(copy, in->bytes + a, len);
    if (len && copy[len - 1] != '\n')
      copy[len++] = '\n';
    size_t times = below(4) ? 1 : 1 + below(50);
    for (size_t t = 0; t < times; t++)
      splice_bytes(in, to, 0, copy, len);
    free(copy);
    note(in, "line %zu repeated %zu times", li + 1, times);
    break;
  }
  case 7: { /* a line moved */
    size_t len = b - a;
    unsigned char *copy = malloc(len + 1);
    memcpy(copy, in->bytes + a, len);
    if (len && copy[len - 1] != '\n')
      copy[len++] = '\n';
    splice_bytes(in, a, b - a, NULL, 0);
    size_t m;
    size_t *ls2 = line_starts(in, &m);
    size_t to = m ? ls2[below(m)] : 0;
    free(ls2);
    splice_bytes(in, to, 0, copy, len);
    free(copy);
    note(in, "line %zu moved", li + 1);
    break;
  }
  case 8: { /* the tag changed */
    size_t ta = a;
    while (ta < b && in->bytes[ta] != ' ' && in->bytes[ta] != '\n')
      ta++;
    const char *t = cldr_tags[below(sizeof cldr_tags / sizeof *cldr_tags)];
    splice_bytes(in, a, ta - a, (const unsigned char *)t, strlen(t));
    note(in, "line %zu tagged %s", li + 1, t);
    break;
  }
  case 9: { /* a field added or the last one dropped */
    size_t e = b > a && in->bytes[b - 1] == '\n' ? b - 1 : b;
    if (below(2)) {
      splice_bytes(in, e, 0, (const unsigned char *)" 0", 2);
      note(in, "line %zu has a field more", li + 1);
    } else {
      size_t s = e;
      while (s > a && in->bytes[s - 1] != ' ')
        s--;
      if (s > a)
        s--;
      splice_bytes(in, s, e - s, NULL, 0);
      note(in, "line %zu has a field less", li + 1);
    }
    break;
  }
  case 10: { /* a line of another seed (another rank's collective...) */
    const struct seed *o = &seeds[below(nseeds)];
    struct input other = {.bytes = o->bytes, .len = o->len};
    size_t m;
    size_t *ol = line_starts(&other, &m);
    if (m) {
      size_t oa = ol[below(m)], ob = line_end(&other, oa);
      splice_bytes(in, ls[below(n)], 0, o->bytes + oa, ob - oa);
      note(in, "a line of %s inserted", o->path);
    }
    free(ol);
    break;
  }
  default: /* bytes */
    if (below(2)) {
      size_t at = below(in->len);
      in->bytes[at] ^= (unsigned char)(1u << below(8));
      note(in, "a bit flipped at %zu", at);
    } else {
      in->len = below(in->len);
      note(in, "truncated to %zu bytes", in->len);
    }
    break;
  }
  free(ls);
}

/* the checksum line written again, for the bytes before it (the last
 * "end " line), or added at the end */
static void fix_checksum(struct input *in)
{
  size_t n;
  size_t *ls = line_starts(in, &n);
  size_t at = in->len;
  for (size_t i = n; i-- > 0;)
    if (in->len - ls[i] >= 4 && !memcmp(in->bytes + ls[i], "end ", 4)) {
      at = ls[i];
      break;
    }
  free(ls);
  if (at == in->len && in->len && in->bytes[in->len - 1] != '\n')
    splice_bytes(in, in->len, 0, (const unsigned char *)"\n", 1), at = in->len;
  uint64_t h = cl_fnv1a(CL_FNV_OFFSET, in->bytes, at);
  char line[40];
  snprintf(line, sizeof line, "end %016" PRIx64 "\n", h);
  splice_bytes(in, at, line_end(in, at) - at, (const unsigned char *)line,
         strlen(line));
}

/* ---- running the report --------------------------------------------- */

static char workdir[4096], dbpath[4200], outpath[4200], errpath[4200];
static char jobdir[4200]; /* a merge run's reduced results */
#define MAX_RANKS 4

static pid_t owner; /* the fuzzer, not a child running the report */
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
  (void)sig;
  stop = 1;
}

/* the input and what SQLite may have left next to it */
static void remove_input(void)
{
  static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
  for (size_t i = 0; i < 4; i++) {
    char p[4300];
    snprintf(p, sizeof p, "%s%s", dbpath, sfx[i]);
    unlink(p);
  }
}

static char *rank_path(size_t i)
{
  static char p[4300];
  snprintf(p, sizeof p, "%s/rank%zu.cldr", jobdir, i);
  return p;
}

static void remove_job(void)
{
  for (size_t i = 0; i < MAX_RANKS; i++)
    unlink(rank_path(i));
}

static void cleanup(void)
{
  if (!workdir[0] || getpid() != owner)
    return;
  remove_input();
  remove_job();
  rmdir(jobdir);
  unlink(outpath);
  unlink(errpath);
  rmdir(workdir);
  workdir[0] = 0;
}

/* a control character (C0 but newline, DEL, C1 in UTF-8) in B */
static bool raw_control(const unsigned char *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if ((b[i] < 0x20 && b[i] != '\n') || b[i] == 0x7f ||
        (b[i] == 0xc2 && i + 1 < n && b[i + 1] >= 0x80 && b[i + 1] < 0xa0))
      return true;
  return false;
}

/* the formats a run may ask for; text and github output must not hold
 * raw control characters */
static const char *const formats[] = {"text",     "json", "sarif",
                                      "github",   "perfetto", "html"};

/* the report on the NTARGETS paths TARGETS in a child, in formats[FMT]; a
 * message when the run fails, else NULL */
static const char *run_report(int fmt, char **targets, int ntargets,
                              unsigned timeout_s, char *why, size_t len)
{
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    die("fork: %s", strerror(errno));
  if (pid == 0) {
    int out = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || err < 0)
      _exit(98);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    alarm(timeout_s); /* a hang dies of SIGALRM */
    optind = 0;       /* getopt starts afresh (glibc), as in a new process */
    char format[32];
    snprintf(format, sizeof format, "--format=%s", formats[fmt]);
    char *argv[2 + MAX_RANKS + 1] = {"cudalens-report", format};
    for (int i = 0; i < ntargets && i < MAX_RANKS; i++)
      argv[2 + i] = targets[i];
    exit(cudalens_report_main(2 + (ntargets < MAX_RANKS ? ntargets : MAX_RANKS),
                              argv));
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      die("waitpid: %s", strerror(errno));
  size_t olen, elen;
  unsigned char *out = read_file(outpath, &olen);
  unsigned char *err = read_file(errpath, &elen);
  const char *fail = NULL;
  if (WIFSIGNALED(status)) {
    snprintf(why, len, WTERMSIG(status) == SIGALRM ? "hang (over %u s)"
                                                   : "killed by signal %d",
             WTERMSIG(status) == SIGALRM ? timeout_s : (unsigned)WTERMSIG(status));
    fail = why;
  } else {
    int code = WEXITSTATUS(status);
    size_t lines = 0;
    for (size_t i = 0; i < elen; i++)
      lines += err[i] == '\n';
    if (code > 2) {
      snprintf(why, len, "exit status %d", code);
      fail = why;
    } else if (code < 2 && elen) {
      snprintf(why, len, "exit %d with stderr", code);
      fail = why;
    } else if (code == 2 &&
               (lines != 1 || err[elen - 1] != '\n' ||
                elen < 17 || memcmp(err, "cudalens-report: ", 17) != 0)) {
      snprintf(why, len, "exit 2 without a one-line error");
      fail = why;
    } else if (code == 2 && olen) {
      snprintf(why, len, "exit 2 with a report on stdout");
      fail = why;
    } else if (raw_control(err, elen)) {
      snprintf(why, len, "raw control character in the error");
      fail = why;
    } else if ((fmt == 0 || fmt == 3) && raw_control(out, olen)) {
      snprintf(why, len, "raw control character in the %s report",
               formats[fmt]);
      fail = why;
    } else if (fmt == 1 && code < 2) {
      char *text = malloc(olen + 1);
      memcpy(text, out, olen);
      text[olen] = 0;
      if (strlen(text) != olen || !json_well_formed(text, false)) {
        snprintf(why, len, "the JSON report is not JSON");
        fail = why;
      }
      free(text);
    }
  }
  if (fail && elen) {
    size_t n = strlen(why);
    snprintf(why + n, len - n, ": %.*s", (int)(elen > 300 ? 300 : elen - 1),
             (const char *)err);
  }
  free(out);
  free(err);
  return fail;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool verbose; /* -v: each refusal's error line */

/* did the last run exit 2 (anything on stderr, for a run that passed)? */
static bool refused(unsigned long long r)
{
  FILE *e = fopen(errpath, "r");
  bool yes = false;
  if (e) {
    char line[512];
    if ((yes = fgets(line, sizeof line, e) != NULL) && verbose)
      printf("run %llu refused: %s", r, line);
    fclose(e);
  }
  return yes;
}

/* A merge run: the reduced result S, mutated, and up to three more ranks
 * (from the reduced seeds CLDRS, each mutated one time in three) written
 * as JOBDIR/rankI.cldr, then the report of the folder or of the files
 * named (a job's reduced results alone: the merge of analyzer/reduced.c
 * and report_main.c).  The same failures as a recording's run; 1 when the
 * run failed (its files kept in CRASHDIR as fail-SEED-RUN-rankI.cldr). */
static int merge_run(const struct seed *s, const struct seed *cldrs,
                     size_t ncldr, unsigned long long seed,
                     unsigned long long r, unsigned timeout_s,
                     const char *crashdir, unsigned long long *exit2)
{
  size_t nranks = 1 + below(MAX_RANKS);
  struct input in[MAX_RANKS];
  memset(in, 0, sizeof in);
  remove_job();
  for (size_t i = 0; i < nranks; i++) {
    const struct seed *from = i ? &cldrs[below(ncldr)] : s;
    in[i].len = in[i].cap = from->len;
    in[i].bytes = malloc(from->len ? from->len : 1);
    memcpy(in[i].bytes, from->bytes, from->len);
    note(&in[i], "from %s", from->path);
    if (i && below(3))
      goto write;
    size_t nmut = 1 + below(3);
    bool gentle = below(2);
    for (size_t m = 0; m < nmut; m++)
      mutate_cldr_once(&in[i], cldrs, ncldr, gentle);
    if (below(8)) /* most: the checksum matches what was made */
      fix_checksum(&in[i]);
  write:
    write_file(rank_path(i), in[i].bytes, in[i].len);
  }
  /* static: the report runs in a forked child of this process, whose
   * leak check must find the names still reachable when it exits */
  static char *targets[MAX_RANKS];
  int ntargets = 1;
  targets[0] = jobdir;
  bool named = below(4);
  if (named) { /* the files named, rather than their folder */
    for (size_t i = 0; i < nranks; i++)
      targets[i] = strdup(rank_path(i));
    ntargets = (int)nranks;
  }
  /* text 4/8, json 2/8, sarif and github 1/8 each (the timelines draw
   * the recording itself: not from a reduced result) */
  unsigned pick = (unsigned)below(8);
  int fmt = pick < 4 ? 0 : pick < 6 ? 1 : (int)pick - 4;
  char why[1024];
  const char *fail = run_report(fmt, targets, ntargets, timeout_s, why,
                                sizeof why);
  if (named) /* one rank's name too (it was kept before: a leak that the
              * leak check of the next run's child reported) */
    for (int i = 0; i < ntargets; i++)
      free(targets[i]);
  if (fail) {
    printf("FAIL run %llu (seed %llu, merge of %zu reduced results, %s): %s\n",
           r, seed, nranks, formats[fmt], fail);
    for (size_t i = 0; i < nranks; i++) {
      char keep[4300];
      snprintf(keep, sizeof keep, "%s/fail-%llu-%llu-rank%zu.cldr", crashdir,
               seed, r, i);
      write_file(keep, in[i].bytes, in[i].len);
      printf("  rank%zu.cldr: %s\n  kept as %s\n", i, in[i].what, keep);
    }
  } else {
    *exit2 += refused(r);
  }
  for (size_t i = 0; i < nranks; i++)
    free(in[i].bytes);
  return fail ? 1 : 0;
}

static void usage(void)
{
  fputs("usage: fuzz_report [-n RUNS] [-s SEED] [-r FIRST_RUN] [-t SECONDS]"
        " [-o CRASHDIR] [-q] [-v] RECORDING.db|REDUCED.cldr...\n", stderr);
  exit(2);
}

static unsigned long long number(const char *s)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || !*s || *end)
    usage();
  return v;
}

int main(int argc, char **argv)
{
  unsigned long long runs = 1000, seed = 1, first = 0;
  unsigned timeout_s = 10;
  const char *crashdir = ".";
  bool quiet = false;
  int c;
  while ((c = getopt(argc, argv, "n:s:r:t:o:qv")) != -1) {
    switch (c) {
    case 'n': runs = number(optarg); break;
    case 's': seed = number(optarg); break;
    case 'r': first = number(optarg); break;
    case 't': timeout_s = (unsigned)number(optarg); break;
    case 'o': crashdir = optarg; break;
    case 'q': quiet = true; break;
    case 'v': verbose = true; break;
    default: usage();
    }
  }
  if (optind >= argc)
    usage();
  size_t nseeds = (size_t)(argc - optind);
  struct seed *seeds = calloc(nseeds, sizeof *seeds);
  for (size_t i = 0; i < nseeds; i++) {
    seeds[i].path = argv[optind + (int)i];
    seeds[i].bytes = read_file(seeds[i].path, &seeds[i].len);
  }

  const char *tmp = getenv("TMPDIR");
  snprintf(workdir, sizeof workdir, "%s/fuzz_report.XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(workdir))
    die("%s: %s", workdir, strerror(errno));
  owner = getpid();
  atexit(cleanup);
  signal(SIGINT, on_stop);
  signal(SIGTERM, on_stop);
  snprintf(dbpath, sizeof dbpath, "%s/input.db", workdir);
  snprintf(jobdir, sizeof jobdir, "%s/job", workdir);
  if (mkdir(jobdir, 0700) != 0)
    die("%s: %s", jobdir, strerror(errno));
  size_t ncldr = 0;
  for (size_t i = 0; i < nseeds; i++)
    ncldr += is_cldr(seeds[i].path);
  struct seed *cldrs = calloc(ncldr ? ncldr : 1, sizeof *cldrs);
  for (size_t i = 0, k = 0; i < nseeds; i++)
    if (is_cldr(seeds[i].path))
      cldrs[k++] = seeds[i];
  snprintf(outpath, sizeof outpath, "%s/stdout", workdir);
  snprintf(errpath, sizeof errpath, "%s/stderr", workdir);

  unsigned long long failed = 0, exit2 = 0;
  double t0 = now(), last = t0;
  unsigned long long r = first;
  for (; r < first + runs && !stop; r++) {
    rng_state = seed * 0x100000001b3ULL ^ r * 0x9e3779b97f4a7c15ULL;
    rnd();
    const struct seed *s = &seeds[below(nseeds)];
    if (is_cldr(s->path)) {
      failed += merge_run(s, cldrs, ncldr, seed, r, timeout_s, crashdir,
                          &exit2);
      goto next;
    }
    struct input in = {.len = s->len, .cap = s->len};
    in.bytes = malloc(s->len ? s->len : 1);
    memcpy(in.bytes, s->bytes, s->len);
    /* mostly SQL-level (reaching the analyses), some page-level (the
     * reading of damaged files), some both */
    size_t kind = below(8), nmut = 1 + below(3);
    for (size_t m = 0; m < nmut; m++) {
      if (kind < 5 || (kind == 7 && below(2)))
        mutate_sql(&in, dbpath);
      else
        mutate_bytes(&in);
    }
    remove_input();
    write_file(dbpath, in.bytes, in.len);
    char why[1024];
    /* text 4/10, json 2/10, sarif, github, perfetto and html 1/10 each */
    unsigned pick = (unsigned)below(10);
    int fmt = pick < 4 ? 0 : pick < 6 ? 1 : (int)pick - 4;
    char *target = dbpath;
    const char *fail = run_report(fmt, &target, 1, timeout_s, why, sizeof why);
    if (fail) {
      failed++;
      char keep[4300];
      snprintf(keep, sizeof keep, "%s/fail-%llu-%llu.db", crashdir, seed, r);
      write_file(keep, in.bytes, in.len);
      printf("FAIL run %llu (seed %llu, from %s, %s): %s\n  mutations: %s\n"
             "  input kept as %s\n", r, seed, s->path, formats[fmt],
             fail, in.what, keep);
    } else {
      /* exit 2 is the expected answer to most damaged inputs */
      exit2 += refused(r);
    }
    free(in.bytes);
  next:;
    double t = now();
    if (!quiet && t - last >= 10) {
      printf("%llu runs, %.1f runs/s, %llu failed\n", r - first + 1,
             (double)(r - first + 1) / (t - t0), failed);
      fflush(stdout);
      last = t;
    }
  }
  double t = now() - t0;
  runs = r - first;
  printf("fuzz_report: %llu runs (seed %llu, runs %llu-%llu) in %.1f s,"
         " %.1f runs/s; %llu refused with exit 2; %llu failed\n",
         runs, seed, first, r - 1, t, t > 0 ? (double)runs / t : 0.0,
         exit2, failed);
  for (size_t i = 0; i < nseeds; i++)
    free(seeds[i].bytes);
  free(seeds);
  free(cldrs);
  return failed ? 1 : 0;
}

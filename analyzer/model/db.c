/* db.c - opens a recording read-only and validates it.
 *
 * Opening strategy: a recording is normally a plain SQLite file, but one
 * whose process was killed may be in WAL mode with its data still in a
 * leftover -wal file.  SQLite can read such a file read-only only when it
 * can open or create the -shm wal-index, i.e. when the directory is
 * writable.  So: (1) open with SQLITE_OPEN_READONLY and probe; (2) if that
 * fails and a -wal file exists, copy the database and its -wal into a
 * private temporary directory and read the copy (recovering the WAL there,
 * never touching the user's files); (3) otherwise open with immutable=1,
 * which needs no locks or -shm and is safe because there is no WAL to miss.
 * A recording is untrusted input: only regular files are opened (a FIFO
 * would block), and nothing of its schema but its tables is used (see
 * harden()).
 */
#include "model/db.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cudalens/format.h"
#include "model/names.h"
#include "model/replay.h"
#include "tempdir.h"
#include "util.h"

/* the two kinds of file db_open_kind reads (tables.h, enum cl_file) and how
 * its messages name them */
struct file_kind {
  const char *format;        /* meta.format */
  int version;               /* the newest PRAGMA user_version read */
  const char *(*schema)(void);
  const char *noun;          /* "recording" */
  const char *what;          /* "cudalens recording" */
  const char *version_name;  /* "recording format" */
};
static const struct file_kind recording_kind = {
    CL_FORMAT_NAME, CL_SCHEMA_VERSION, cl_schema_sql, "recording",
    "cudalens recording", "recording format"};
static const struct file_kind footprint_kind = {
    CL_FOOTPRINT_NAME, CL_FOOTPRINT_VERSION, cl_footprint_schema_sql,
    "footprint file", "cudalens footprint file", "footprint format"};

static int copy_file(const char *from, const char *to)
{
  int in = open_regular_file(from, NULL);
  if (in < 0)
    return -1;
  int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0) {
    close(in);
    return -1;
  }
  char buf[1 << 16];
  ssize_t n;
  int rc = 0;
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n) {
      rc = -1;
      break;
    }
  if (n < 0)
    rc = -1;
  close(in);
  if (close(out) < 0)
    rc = -1;
  return rc;
}

/* "file:" URI for PATH with immutable=1 (RFC 3986 escaping of the path) */
static char *immutable_uri(const char *path)
{
  size_t n = strlen(path);
  char *u = xmalloc(n * 3 + 32), *p = u;
  p += sprintf(p, "file:");
  for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
    if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
        (*s >= '0' && *s <= '9') || strchr("/-._~", *s))
      *p++ = (char)*s;
    else
      p += sprintf(p, "%%%02X", *s);
  }
  strcpy(p, "?immutable=1");
  return u;
}

/* The authorizer of a recording's connection: the analyzer's own queries
 * only, nothing that runs on behalf of a view or trigger of the recording
 * (whose SQL is the recording's: a view named like a table can recurse
 * forever). */
static int deny_schema_code(void *unused, int action, const char *a,
                            const char *b, const char *db,
                            const char *view_or_trigger)
{
  (void)unused, (void)action, (void)a, (void)b, (void)db;
  return view_or_trigger ? SQLITE_DENY : SQLITE_OK;
}

/* a recording is untrusted input ("Defense Against The Dark Arts" in the
 * SQLite documentation) */
static void harden(sqlite3 *db)
{
  sqlite3_set_authorizer(db, deny_schema_code, NULL);
#ifdef SQLITE_DBCONFIG_DEFENSIVE
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
#endif
}

/* TABLE of the reference schema (a plain identifier) is a table of DB: a
 * query on it does not go through a view */
static bool is_table(sqlite3 *db, const char *table)
{
  char *sql = xasprintf("SELECT 1 FROM main.\"%s\"", table);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  sqlite3_finalize(st);
  free(sql);
  return rc == SQLITE_OK || sqlite3_errcode(db) != SQLITE_AUTH;
}

/* open FILE (or URI) read-only into D and read the schema; 0 on success */
static int try_open(struct cl_db *d, const char *file, int flags, char **err)
{
  sqlite3 **db = &d->db;
  *db = NULL;
  int rc = sqlite3_open_v2(file, db,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | flags,
                           NULL);
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(*db, 2000);
    harden(*db);
    rc = sqlite3_exec(*db, "SELECT count(*) FROM sqlite_master", NULL, NULL,
                      NULL);
  }
  if (rc == SQLITE_OK) {
    free(d->open_name);
    d->open_name = xstrdup(file);
    d->open_flags = flags;
    return 0;
  }
  if (err) {
    free(*err);
    *err = xstrdup(*db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
  }
  sqlite3_close(*db);
  *db = NULL;
  return -1;
}

static int open_copy(struct cl_db *d, char **why)
{
  /* removed by db_close(), and by tempdir.c on any other way out */
  static const char *const names[] = {"rec.db", "rec.db-wal", "rec.db-shm",
                                      "rec.db-journal", NULL};
  const char *dir = tempdir_create(names);
  if (!dir)
    return -1;
  d->copy_dir = dir;
  char *db = xasprintf("%s/rec.db", dir), *wal = xasprintf("%s/rec.db-wal", dir);
  char *srcwal = xasprintf("%s-wal", d->path);
  int rc = -1;
  if (copy_file(d->path, db) == 0 && copy_file(srcwal, wal) == 0)
    rc = try_open(d, db, 0, why);
  free(db);
  free(wal);
  free(srcwal);
  return rc;
}

/* Planner statistics (sqlite_stat1, sqlite_stat4...) are the recording's
 * own, and a recording is untrusted input: planted ones made the report's
 * queries quadratic (issue 24, defect 4: 48,000 calls 0.12 s -> 15 s).  The
 * writer never makes any.  A recording that has them is read from a
 * private copy without them (the copy of a recording left in WAL mode is
 * that copy already), so the planner uses its own estimates. */
static bool has_statistics(sqlite3 *db)
{
  sqlite3_stmt *st = NULL;
  bool has = false;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE"
                             " name LIKE 'sqlite!_stat%' ESCAPE '!'",
                         -1, &st, NULL) == SQLITE_OK)
    has = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return has;
}

static int drop_statistics(struct cl_db *d, char **why)
{
  if (!has_statistics(d->db))
    return 0;
  sqlite3_close(d->db);
  d->db = NULL;
  if (!d->copy_dir) {
    static const char *const names[] = {"rec.db", "rec.db-wal", "rec.db-shm",
                                        "rec.db-journal", NULL};
    const char *dir = tempdir_create(names);
    if (!dir) {
      *why = xasprintf("cannot copy it to drop its planner statistics: %s",
                       strerror(errno));
      return -1;
    }
    d->copy_dir = dir;
    char *db = xasprintf("%s/rec.db", dir);
    int rc = copy_file(d->path, db);
    free(db);
    if (rc) {
      *why = xasprintf("cannot copy it to drop its planner statistics: %s",
                       strerror(errno));
      return -1;
    }
  }
  char *copy = xasprintf("%s/rec.db", d->copy_dir), *names = NULL;
  sqlite3 *rw = NULL;
  int rc = sqlite3_open_v2(copy, &rw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                           NULL);
  sqlite3_stmt *st = NULL;
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(rw, "SELECT group_concat('DROP TABLE \"' ||"
                                " replace(name, '\"', '\"\"') || '\";', '')"
                                " FROM sqlite_master WHERE type = 'table' AND"
                                " name LIKE 'sqlite!_stat%' ESCAPE '!'",
                            -1, &st, NULL);
  if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_text(st, 0))
    names = xstrdup((const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  if (rc == SQLITE_OK && names)
    rc = sqlite3_exec(rw, names, NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    *why = xasprintf("cannot drop its planner statistics: %s",
                     rw ? sqlite3_errmsg(rw) : sqlite3_errstr(rc));
  free(names);
  sqlite3_close(rw);
  if (rc == SQLITE_OK)
    rc = try_open(d, copy, 0, why);
  free(copy);
  if (rc == SQLITE_OK && has_statistics(d->db)) {
    *why = xstrdup("cannot drop its planner statistics");
    rc = -1;
  }
  return rc == SQLITE_OK ? 0 : -1;
}

static int check_header(const char *path, const struct file_kind *k,
                        char **err)
{
  unsigned mode;
  int fd = open_regular_file(path, &mode);
  if (fd == OPEN_NOT_REGULAR) {
    *err = xasprintf("%s: is %s, not a %s", path, file_type_name(mode),
                     k->noun);
    return -1;
  }
  if (fd < 0) {
    *err = xasprintf("%s: %s", path, strerror(errno));
    return -1;
  }
  char hdr[16];
  ssize_t n = read(fd, hdr, sizeof hdr);
  close(fd);
  if (n != (ssize_t)sizeof hdr || memcmp(hdr, "SQLite format 3", 16) != 0) {
    *err = xasprintf("%s: not a %s (not an SQLite database)", path, k->what);
    return -1;
  }
  return 0;
}

/* the schema version that added TABLE (tables.def; 1: there from the start) */
static int table_since(const char *table)
{
  const struct cl_table_decl *t = cl_table_named(table);
  return t ? t->since : 1;
}

/* SQLite opens the -wal, -shm and -journal files it finds next to a
 * database (a read-only reader too: to read the log, or to look for a hot
 * journal); one that is a FIFO would block it forever, a device could act */
static int check_companions(const char *path, char **err)
{
  static const char *const suffixes[] = {"-wal", "-shm", "-journal"};
  for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
    char *p = xasprintf("%s%s", path, suffixes[i]);
    struct stat st;
    if (stat(p, &st) == 0 && !S_ISREG(st.st_mode)) {
      *err = xasprintf("%s: is %s, not a regular file", p,
                       file_type_name((unsigned)st.st_mode));
      free(p);
      return -1;
    }
    free(p);
  }
  return 0;
}

/* every table and column of the schema must be in the file (a recording:
 * of its version's schema, cl_schema_sql_of: kernel_args up to 5,
 * launch_args since 6), each table a real table (a view in its place,
 * which could run anything, is refused by the authorizer of harden()) */
static int check_schema(struct cl_db *d, const struct file_kind *k, char **err)
{
  sqlite3 *ref = NULL;
  char sql[16384];
  const char *schema = k->schema();
  if (k == &recording_kind)
    schema = cl_schema_sql_of(sql, sizeof sql, d->version) < 0 ? NULL : sql;
  if (!schema ||
      sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
      sqlite3_exec(ref, schema, NULL, NULL, NULL) != SQLITE_OK) {
    *err = xasprintf("%s: cannot build the reference schema: %s", d->path,
                     sqlite3_errmsg(ref));
    sqlite3_close(ref);
    return -1;
  }
  sqlite3_stmt *cols;
  sqlite3_prepare_v2(ref,
                     "SELECT m.name, p.name FROM sqlite_master m,"
                     " pragma_table_info(m.name) p WHERE m.type='table'"
                     " ORDER BY m.name, p.cid",
                     -1, &cols, NULL);
  sqlite3_stmt *has;
  if (sqlite3_prepare_v2(d->db,
                         "SELECT count(*) FROM pragma_table_info(?1)"
                         " WHERE name=?2",
                         -1, &has, NULL) != SQLITE_OK) {
    *err = xasprintf("%s: %s", d->path, sqlite3_errmsg(d->db));
    sqlite3_finalize(cols);
    sqlite3_close(ref);
    return -1;
  }
  int rc = 0;
  char *checked = NULL; /* the last table found to be a table */
  while (rc == 0 && sqlite3_step(cols) == SQLITE_ROW) {
    const char *t = (const char *)sqlite3_column_text(cols, 0);
    const char *c = (const char *)sqlite3_column_text(cols, 1);
    if (table_since(t) > d->version)
      continue; /* older recordings lack it; readers check db_has_table */
    if (!checked || strcmp(checked, t) != 0) {
      free(checked);
      checked = xstrdup(t);
      if (!is_table(d->db, t)) {
        *err = xasprintf("%s: damaged %s: '%s' is not a table", d->path,
                         k->what, t);
        rc = -1;
        break;
      }
    }
    sqlite3_bind_text(has, 1, t, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(has, 2, c, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(has) != SQLITE_ROW || sqlite3_column_int(has, 0) == 0) {
      *err = xasprintf("%s: damaged %s: table '%s' lacks column '%s'",
                       d->path, k->what, t, c);
      rc = -1;
    }
    sqlite3_reset(has);
  }
  free(checked);
  sqlite3_finalize(has);
  sqlite3_finalize(cols);
  sqlite3_close(ref);
  return rc;
}

static int open_kind(struct cl_db *d, const char *path,
                     const struct file_kind *k, char **err)
{
  memset(d, 0, sizeof *d);
  d->path = path;
  *err = NULL;
  if (check_header(path, k, err) < 0 || check_companions(path, err) < 0)
    return -1;
  if (stat(path, &d->identity) < 0)
    memset(&d->identity, 0, sizeof d->identity);

  char *why = NULL;
  if (try_open(d, path, 0, &why) < 0) {
    char *wal = xasprintf("%s-wal", path);
    bool has_wal = access(wal, F_OK) == 0;
    free(wal);
    int rc;
    if (has_wal) {
      rc = open_copy(d, &why);
    } else {
      char *uri = immutable_uri(path);
      rc = try_open(d, uri, SQLITE_OPEN_URI, &why);
      free(uri);
    }
    if (rc < 0) {
      *err = xasprintf("%s: cannot read the %s: %s", path, k->noun,
                       why ? why : "unknown error");
      free(why);
      db_close(d);
      return -1;
    }
  }
  free(why);
  why = NULL;
  if (drop_statistics(d, &why) < 0) {
    *err = xasprintf("%s: cannot read the %s: %s", path, k->noun,
                     why ? why : "unknown error");
    free(why);
    db_close(d);
    return -1;
  }
  free(why);

  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(d->db, "SELECT value FROM meta WHERE key='format'",
                              -1, &st, NULL);
  const char *fmt = NULL;
  char *format = NULL;
  if (rc == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW)
      fmt = (const char *)sqlite3_column_text(st, 0);
    format = xstrdup(fmt);
    sqlite3_finalize(st);
  } else if (!strstr(sqlite3_errmsg(d->db), "no such table")) {
    *err = xasprintf("%s: cannot read the %s: %s", path, k->noun,
                     sqlite3_errmsg(d->db));
    db_close(d);
    return -1;
  }
  if (!format || strcmp(format, k->format) != 0) {
    *err = xasprintf("%s: not a %s (no meta.format='%s')", path, k->what,
                     k->format);
    free(format);
    db_close(d);
    return -1;
  }
  free(format);

  rc = sqlite3_prepare_v2(d->db, "PRAGMA user_version", -1, &st, NULL);
  if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    d->version = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  if (d->version > k->version) {
    *err = xasprintf("%s: was written by a newer cudalens (%s %d, this"
                     " report reads up to %d); upgrade cudalens-report",
                     path, k->version_name, d->version, k->version);
    db_close(d);
    return -1;
  }
  if (d->version < 1) {
    *err = xasprintf("%s: not a valid %s (%s %d)", path, k->what,
                     k->version_name, d->version);
    db_close(d);
    return -1;
  }
  if (check_schema(d, k, err) < 0) {
    db_close(d);
    return -1;
  }
  /* one read transaction for the whole report: every query sees the same
   * recording, and SQLite takes its lock (and looks for a hot journal)
   * once, not once per statement run; db_close() ends it */
  if (sqlite3_exec(d->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
    *err = xasprintf("%s: cannot read the %s: %s", path, k->noun,
                     sqlite3_errmsg(d->db));
    db_close(d);
    return -1;
  }
  return 0;
}

int db_open(struct cl_db *d, const char *path, char **err)
{
  return open_kind(d, path, &recording_kind, err);
}

int db_open_footprints(struct cl_db *d, const char *path, char **err)
{
  return open_kind(d, path, &footprint_kind, err);
}

void db_close(struct cl_db *d)
{
  replay_log_free(d->calls_log);
  d->calls_log = NULL;
  names_free(d);
  if (d->facts_sql)
    free(d->facts_sql->task_devices);
  free(d->facts_sql);
  d->facts_sql = NULL;
  for (int i = 0; i < d->ncached; i++)
    sqlite3_finalize(d->cached[i].st);
  d->ncached = 0;
  if (d->db && !sqlite3_get_autocommit(d->db))
    sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL);
  if (d->db)
    sqlite3_close(d->db);
  d->db = NULL;
  if (d->copy_dir)
    tempdir_remove();
  d->copy_dir = NULL;
  free(d->open_name);
  d->open_name = NULL;
}

/* the file at PATH is still the one D opened */
static bool same_file(const struct cl_db *d)
{
  struct stat st;
  const struct stat *was = &d->identity;
  return stat(d->path, &st) == 0 && st.st_dev == was->st_dev &&
         st.st_ino == was->st_ino && st.st_size == was->st_size &&
         st.st_mtim.tv_sec == was->st_mtim.tv_sec &&
         st.st_mtim.tv_nsec == was->st_mtim.tv_nsec;
}

int db_open_twin(struct cl_db *d, struct cl_db *twin)
{
  memset(twin, 0, sizeof *twin);
  if (!sqlite3_threadsafe() || !d->open_name || d->copy_dir)
    return -1;
  /* D's read lock first (any read in its transaction takes it), then
   * what it sees: a journal mode other than WAL */
  if (sqlite3_exec(d->db, "SELECT count(*) FROM sqlite_master", NULL, NULL,
                   NULL) != SQLITE_OK)
    return -1;
  sqlite3_stmt *st = db_prepare(d, "PRAGMA journal_mode");
  const char *mode = db_step(d, st) ? db_text(st, 0) : NULL;
  bool wal = !mode || strcmp(mode, "wal") == 0;
  db_finalize(st);
  if (wal)
    return -1;
  twin->path = d->path;
  twin->version = d->version;
  twin->soft = true;
  if (sqlite3_open_v2(d->open_name, &twin->db,
                      SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
                          d->open_flags,
                      NULL) != SQLITE_OK) {
    db_close(twin);
    return -1;
  }
  sqlite3_busy_timeout(twin->db, 2000);
  harden(twin->db);
  if (sqlite3_exec(twin->db, "BEGIN; SELECT count(*) FROM sqlite_master",
                   NULL, NULL, NULL) != SQLITE_OK ||
      !same_file(d)) {
    db_close(twin);
    return -1;
  }
  return 0;
}

void db_fatal(struct cl_db *d, const char *what)
{
  char *msg = xasprintf("%s: %s: %s", d->path, what,
                        d->db ? sqlite3_errmsg(d->db) : "no database");
  fatal("%s", msg); /* exit() removes the copy */
}

sqlite3_stmt *db_prepare(struct cl_db *d, const char *sql)
{
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) == SQLITE_OK)
    return st;
  if (!d->soft)
    db_fatal(d, "query failed");
  d->failed = true;
  return NULL;
}

sqlite3_stmt *db_prepare_table(struct cl_db *d, enum cl_table t,
                               unsigned long long cols, const char *tail)
{
  char sql[1024];
  if (cl_select_sql(sql, sizeof sql, t, cols, tail) < 0)
    fatal("internal error: the SELECT of table %d is too long", (int)t);
  return db_prepare(d, sql);
}

sqlite3_stmt *db_cached(struct cl_db *d, const char *sql)
{
  for (int i = 0; i < d->ncached; i++)
    if (d->cached[i].sql == sql) {
      sqlite3_reset(d->cached[i].st);
      sqlite3_clear_bindings(d->cached[i].st);
      return d->cached[i].st;
    }
  sqlite3_stmt *st = db_prepare(d, sql);
  if (!st)
    return NULL;
  if (d->ncached == (int)(sizeof d->cached / sizeof *d->cached))
    fatal("internal error: more than %d cached statements", d->ncached);
  d->cached[d->ncached++] = (struct db_cached){sql, st};
  return st;
}

bool db_step(struct cl_db *d, sqlite3_stmt *st)
{
  if (!st && d->soft)
    return false; /* db_prepare failed: failed is set */
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW)
    return true;
  if (rc == SQLITE_DONE)
    return false;
  if (!d->soft)
    db_fatal(d, "query failed");
  d->failed = true;
  return false;
}

struct db_cursor *db_cursor_open(struct cl_db *d, sqlite3_stmt *st)
{
  struct db_cursor *c = xcalloc(1, sizeof *c);
  c->d = d;
  c->st = st;
  return c;
}

bool db_cursor_step(struct db_cursor *c)
{
  return c && c->st && db_step(c->d, c->st);
}

void db_cursor_close(struct db_cursor *c)
{
  if (!c)
    return;
  db_finalize(c->st);
  free(c);
}

bool db_has_table(struct cl_db *d, const char *name)
{
  sqlite3_stmt *st = db_prepare(d, "SELECT 1 FROM sqlite_master"
                                   " WHERE type='table' AND name=?1");
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  bool has = db_step(d, st);
  db_finalize(st);
  return has;
}

void db_finalize(sqlite3_stmt *st)
{
  sqlite3_finalize(st);
}

const char *db_text(sqlite3_stmt *st, int col)
{
  return (const char *)sqlite3_column_text(st, col);
}

int64_t db_int(sqlite3_stmt *st, int col)
{
  return sqlite3_column_int64(st, col);
}

bool db_null(sqlite3_stmt *st, int col)
{
  return sqlite3_column_type(st, col) == SQLITE_NULL;
}

char *db_meta(struct cl_db *d, const char *key)
{
  sqlite3_stmt *st = db_prepare(d, "SELECT value FROM meta WHERE key=?1");
  sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
  char *v = NULL;
  if (db_step(d, st))
    v = xstrdup(db_text(st, 0));
  db_finalize(st);
  return v;
}

static const char CALL_STACKS_SQL[] =
    "SELECT stack, pystack FROM calls WHERE seq=?1";

void call_stacks(struct cl_db *d, int64_t seq, int64_t *stack,
                 int64_t *pystack)
{
  *stack = *pystack = -1;
  sqlite3_stmt *st = db_cached(d, CALL_STACKS_SQL);
  if (!st)
    return;
  sqlite3_bind_int64(st, 1, seq);
  if (db_step(d, st)) {
    if (!db_null(st, 0))
      *stack = db_int(st, 0);
    if (!db_null(st, 1))
      *pystack = db_int(st, 1);
  }
}

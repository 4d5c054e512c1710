/* writer_db.c - the SQLite side of the writer: creates a recording with the
 * schema of include/cudalens/tables.def, describes the process in `meta`,
 * and turns each record into rows (a call into `calls` plus the row of its
 * operation class), binding each column by its name in tables.def;
 * the busiest tables get theirs 32 at a time, in multi-row INSERTs.
 * Call stacks are stored once each; the modules they point into are listed
 * as they are first seen.  The first error that is not about one row ends
 * the recording, with one line saying so.  Runs only on the writer thread. */
#define _GNU_SOURCE
#include <cupti.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "hostguard.h"
#include "manifest.h"
#include "modules.h"
#include "nccl.h"
#include "outfile.h"
#include "ring.h"
#include "sqlite_api.h"
#include "writer_db.h"

/* The INSERT of each table the writer fills, one row of parameters in the
 * order of tables.def (cl_insert_sql): its verb and what follows the row. */
#define CL_INSERTS(X)                                                          \
  X(calls, "INSERT", "")                                                       \
  X(streams, "INSERT OR REPLACE", "")                                          \
  X(events, "INSERT OR REPLACE", "")                                           \
  X(event_records, "INSERT", "")                                               \
  X(stream_waits, "INSERT", "")                                                \
  X(syncs, "INSERT", "")                                                       \
  X(memory, "INSERT", "")                                                      \
  X(mem_access, "INSERT OR REPLACE", "")                                       \
  X(alloc_handles, "INSERT OR REPLACE", "")                                    \
  X(transfers, "INSERT", "")                                                   \
  X(kernels, "INSERT", "")                                                     \
  X(launch_args, "INSERT OR IGNORE", "")                                       \
  X(device_ops, "INSERT", "")                                                  \
  X(stream_ops, "INSERT", "")                                                  \
  X(activity, "INSERT", "")                                                    \
  X(contexts, "INSERT OR REPLACE", "")                                         \
  X(devices, "INSERT OR REPLACE", "")                                          \
  X(strings, "INSERT OR REPLACE", "")                                          \
  X(stacks, "INSERT", "")                                                      \
  X(modules, "INSERT", "")                                                     \
  X(threads, "INSERT OR IGNORE", "")                                           \
  X(drops, "INSERT", " ON CONFLICT(reason) DO UPDATE SET "                     \
                     "count=count+excluded.count")                             \
  X(host_accesses, "INSERT", "")                                               \
  X(thread_edges, "INSERT OR IGNORE", "")                                      \
  X(names, "INSERT OR IGNORE", "")                                             \
  X(graph_execs, "INSERT OR IGNORE", "")                                       \
  X(graph_nodes, "INSERT OR IGNORE", "")                                       \
  X(graph_edges, "INSERT", "")                                                 \
  X(graph_args, "INSERT OR IGNORE", "")                                        \
  X(graph_uninit_params, "INSERT OR IGNORE", "")                               \
  X(communicators, "INSERT OR REPLACE", "")                                    \
  X(collectives, "INSERT", "")                                                 \
  X(host_func_runs, "INSERT OR IGNORE", "")                                    \
  X(meta, "INSERT OR REPLACE", "")                                             \
  X(api, "INSERT", "")

/* the other statements: their text, parameters by number */
#define CL_UPDATES(X)                                                          \
  X(context_gone, "UPDATE contexts SET destroyed_seq=?1 WHERE id=?2")          \
  X(stream_gone, "UPDATE streams SET destroyed_seq=?1 WHERE handle=?2 AND "    \
                 "seq<?1 AND destroyed_seq IS NULL")                            \
  X(event_gone, "UPDATE events SET destroyed_seq=?1 WHERE handle=?2 AND "      \
                "seq<?1 AND destroyed_seq IS NULL")                            \
  X(communicator_gone, "UPDATE communicators SET destroyed_seq=?1 WHERE "      \
                       "handle=?2 AND seq<?1 AND destroyed_seq IS NULL")

struct stack_entry {
  uint64_t hash;
  uint32_t id, n;
  uint64_t *frames;
};

/* The tables that take rows at the rate of calls and GPU activity (those
 * of each call's operation class that only ever get new rows) get them
 * BATCH_ROWS at a time, through one multi-row INSERT: SQLite's cost per
 * statement run (opening the table, finding the place, ending the statement)
 * is then shared by the rows.  A row's values wait in cells; the statement
 * keeps its bound values between runs, so only the cells that differ from
 * what is bound there are bound again. */
#define BATCH_ROWS 32
enum { CELL_NULL, CELL_INT, CELL_TEXT, CELL_BLOB };
struct cell {
  int64_t i;      /* CELL_BLOB: its length */
  const char *s;  /* CELL_TEXT: a string literal; CELL_BLOB: bytes that stay
                   * until the row is inserted (both bound SQLITE_STATIC) */
  uint8_t type;
};

/* the batched tables (their single-row statement, in CL_INSERTS, is used
 * for the rows left at a commit) */
#define CL_BATCHES(X)                                                          \
  X(calls)                                                                     \
  X(kernels)                                                                   \
  X(launch_args)                                                               \
  X(transfers)                                                                 \
  X(activity)                                                                  \
  X(syncs)                                                                     \
  X(memory)                                                                    \
  X(event_records)                                                             \
  X(stream_waits)                                                              \
  X(device_ops)                                                                \
  X(stream_ops)

/* the widest batched table's number of columns */
union batch_widths {
#define CL_BATCH_WIDTH(t) char t[CL_NCOLS_##t];
  CL_BATCHES(CL_BATCH_WIDTH)
#undef CL_BATCH_WIDTH
};
#define BATCH_COLS sizeof(union batch_widths)

struct batch {
  sqlite3_stmt *many;  /* INSERT of BATCH_ROWS rows */
  int ncols, n;        /* n rows wait */
  struct cell rows[BATCH_ROWS][BATCH_COLS];
  struct cell bound[BATCH_ROWS][BATCH_COLS]; /* what many has bound */
};

struct cl_db {
  sqlite3 *sql;
#define CL_STMT_FIELD(name, ...) sqlite3_stmt *name;
  struct {
    CL_INSERTS(CL_STMT_FIELD)
  } insert; /* by table */
  CL_UPDATES(CL_STMT_FIELD)
#undef CL_STMT_FIELD
  /* the words of each launch_args row that waits: CL_MAX_KARGS, or in the
   * row's big buffer (allocated the first time a row has more) */
  unsigned char launch_args_buf[BATCH_ROWS][CL_MAX_KARGS * CL_LAUNCH_ARG_SIZE];
  unsigned char *launch_args_big[BATCH_ROWS];
  uint64_t karg_order[CL_LAUNCH_KARGS];
#define CL_BATCH_FIELD(name) struct batch name##_rows;
  CL_BATCHES(CL_BATCH_FIELD)
#undef CL_BATCH_FIELD
  uint32_t strings_written;
  struct stack_entry *stacks; /* open addressing on hash */
  uint32_t nstacks, capstacks;
  struct cl_module *mods;
  int nmods;
  uint32_t *tids;
  uint32_t ntids, captids;
  uint64_t waits_written;     /* cl_ring_waits() count in meta */
  int failed;                 /* recording ended by an error: write nothing */
  uint64_t lost;              /* records dropped, not yet told the launcher */
  const char *lost_reason;    /* the first reason of those */
  int write_error;            /* ...a write error (disk full): our files are
                               * fine, what is lost is counted and said */
  int retrying;               /* writing what was lost: no second message */
  uint64_t handed, handed_committed; /* records given to cl_db_put */
  uint64_t loss_written;      /* drops 'write-error' in the file */
  char path[4096];            /* as named by CUDALENS_OUTPUT */
  char sqlpath[PATH_MAX];     /* the same file, through no symbolic link */
};

/* the connection a forked child must not touch */
static struct cl_db *current;

/* how far the writer got: statements run, for cl_db_progress() */
static _Atomic uint64_t progress;

uint64_t cl_db_progress(void)
{
  return atomic_load_explicit(&progress, memory_order_relaxed);
}

static int tick(void *arg)
{
  (void)arg;
  atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
  return 0;
}

/* ---- errors ----------------------------------------------------------------- */
__attribute__((format(printf, 2, 3))) static void fail(struct cl_db *db,
                                                       const char *fmt, ...)
{
  if (db->failed || db->retrying) {
    db->failed = 1;
    return;
  }
  db->failed = 1;
  char why[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  CL_LOG(CL_LOG_ERROR, "recording to '%s' stopped: %s; the rest of this run "
                       "is not recorded", db->path, why);
}

/* an error of SQLite that costs a row, not the recording */
static int row_error(int rc)
{
  switch (rc & 0xff) {
  case SQLITE_CONSTRAINT: case SQLITE_MISMATCH: case SQLITE_TOOBIG:
  case SQLITE_RANGE:
    return 1;
  default:
    return 0;
  }
}

/* A result of SQLite: errors about one row cost that row; any other (I/O,
 * a full disk, a file that is gone or changed) ends the recording. */
static int check(struct cl_db *db, int rc, const char *what)
{
  if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW)
    return 0;
  if (row_error(rc)) {
    CL_LOG(CL_LOG_WARN, "%s failed: %s", what, sqlite3_errmsg(db->sql));
    return 0;
  }
  /* a full disk, or a write refused: the files are ours still */
  if ((rc & 0xff) == SQLITE_FULL || rc == SQLITE_IOERR_WRITE)
    db->write_error = 1;
  fail(db, "%s failed: %s", what, sqlite3_errmsg(db->sql));
  return -1;
}

static void exec_sql(struct cl_db *db, const char *sql, const char *what)
{
  if (!db->failed)
    check(db, sqlite3_exec(db->sql, sql, NULL, NULL, NULL), what);
}

/* ---- binding helpers ------------------------------------------------------- */
static void run(struct cl_db *db, sqlite3_stmt *st)
{
  if (!db->failed) {
    check(db, sqlite3_step(st), "database insert");
    atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
  }
  sqlite3_reset(st);
}
/* Column C of table T (tables.def): its parameter in T's INSERT, bound in
 * db->T; the compiler checks that the column has the type bound. */
#define PARAM(t, c) (CL_COL_##t##_##c + 1)
#define IS(t, c, type)                                                         \
  _Static_assert(CL_TYPE_##t##_##c == CL_SQL_##type, #t "." #c " is not " #type)
#define I64(db, t, c, v)                                                       \
  do {                                                                         \
    IS(t, c, INTEGER);                                                         \
    sqlite3_bind_int64((db)->insert.t, PARAM(t, c), (sqlite3_int64)(v));              \
  } while (0)
#define TXT(db, t, c, v)                                                       \
  do {                                                                         \
    IS(t, c, TEXT);                                                            \
    sqlite3_bind_text((db)->insert.t, PARAM(t, c), v, -1, SQLITE_TRANSIENT);          \
  } while (0)
#define BLB(db, t, c, v, n)                                                    \
  do {                                                                         \
    IS(t, c, BLOB);                                                            \
    sqlite3_bind_blob((db)->insert.t, PARAM(t, c), v, n, SQLITE_TRANSIENT);           \
  } while (0)
#define NUL(db, t, c) sqlite3_bind_null((db)->insert.t, PARAM(t, c))
/* the integer V when PRESENT, else NULL */
#define OPT(db, t, c, present, v)                                              \
  do {                                                                         \
    IS(t, c, INTEGER);                                                         \
    opt((db)->insert.t, PARAM(t, c), present, v);                                     \
  } while (0)

/* After a write error: the records given since the last commit are lost;
 * their count goes into drops as 'write-error' in a transaction of its own,
 * which may fit where the lost one did not (the WAL frames of the failed
 * transaction are written over): once when the error happens, in case the
 * process is killed, and with the end (write_end) for the records lost
 * since (issue 24, defect 7: such a recording said "dropped: nothing"). */
static void note_loss(struct cl_db *db)
{
  char why[256];
  uint64_t n = db->handed - db->handed_committed - db->loss_written;
  if (!db->write_error || !db->sql || !n)
    return;
  if (cl_dbfd_check(why, sizeof why)) {
    db->write_error = 0; /* not ours any more: touch nothing */
    return;
  }
  sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
  if (sqlite3_exec(db->sql, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
    return;
  sqlite3_reset(db->insert.drops);
  TXT(db, drops, reason, "write-error");
  I64(db, drops, count, n);
  int rc = sqlite3_step(db->insert.drops);
  sqlite3_reset(db->insert.drops);
  if (rc == SQLITE_DONE &&
      sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
    db->loss_written += n;
  else
    sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}
static void opt(sqlite3_stmt *st, int i, int present, uint64_t v)
{
  if (present)
    sqlite3_bind_int64(st, i, (sqlite3_int64)v);
  else
    sqlite3_bind_null(st, i);
}

/* ---- batched rows ---------------------------------------------------------- */
static void bind_cell(sqlite3_stmt *st, int i, const struct cell *c)
{
  if (c->type == CELL_INT)
    sqlite3_bind_int64(st, i, c->i);
  else if (c->type == CELL_TEXT)
    sqlite3_bind_text(st, i, c->s, -1, SQLITE_STATIC);
  else if (c->type == CELL_BLOB)
    sqlite3_bind_blob(st, i, c->s, (int)c->i, SQLITE_STATIC);
  else
    sqlite3_bind_null(st, i);
}

static int same_cell(const struct cell *a, const struct cell *b)
{
  /* a blob's bytes change under the same pointer: always bound again */
  return a->type == b->type && a->type != CELL_BLOB &&
         (a->type == CELL_NULL || (a->type == CELL_INT ? a->i == b->i
                                                       : a->s == b->s));
}

/* The cells of the next row of table T's batch, to fill (column C of T at
 * [CL_COL_T_C], checked against its type as binding is) and then ADD_ROW. */
#define NEXT_ROW(db, t) ((db)->t##_rows.rows[(db)->t##_rows.n])
#define ADD_ROW(db, t) add_row(db, &(db)->t##_rows, (db)->insert.t)
#define CELL(row, t, c) ((row)[CL_COL_##t##_##c])
#define CI(row, t, c, v)                                                       \
  do {                                                                         \
    IS(t, c, INTEGER);                                                         \
    CELL(row, t, c) = (struct cell){(int64_t)(v), NULL, CELL_INT};             \
  } while (0)
#define CT(row, t, c, v)                                                       \
  do {                                                                         \
    IS(t, c, TEXT);                                                            \
    CELL(row, t, c) = (struct cell){0, (v), CELL_TEXT};                        \
  } while (0)
#define CB(row, t, c, v, n)                                                    \
  do {                                                                         \
    IS(t, c, BLOB);                                                            \
    CELL(row, t, c) = (struct cell){(int64_t)(n), (const char *)(v), CELL_BLOB}; \
  } while (0)
#define CN(row, t, c) (CELL(row, t, c) = (struct cell){0, NULL, CELL_NULL})
#define COPT(row, t, c, present, v)                                            \
  do {                                                                         \
    IS(t, c, INTEGER);                                                         \
    copt(&CELL(row, t, c), present, v);                                        \
  } while (0)
/* a kernel argument word's place: (param, offset) as one number */
static inline uint32_t karg_key(const struct cl_karg *k)
{
  return (uint32_t)k->param << 16 | k->offset;
}

static int u64_cmp(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The N words at K in (param, offset) order, each (param, offset) once
 * (the first given), as ORDER's low 16 bits (an index into K): how many */
static unsigned karg_order(const struct cl_karg *k, unsigned n, uint64_t *order)
{
  for (unsigned i = 0; i < n; i++)
    order[i] = (uint64_t)karg_key(&k[i]) << 16 | i;
  if (n > CL_MAX_KARGS) {
    qsort(order, n, sizeof *order, u64_cmp);
  } else { /* (a few words: no calls) */
    for (unsigned i = 1; i < n; i++) {
      uint64_t x = order[i];
      unsigned j = i;
      for (; j > 0 && order[j - 1] > x; j--)
        order[j] = order[j - 1];
      order[j] = x;
    }
  }
  unsigned m = 0;
  for (unsigned i = 0; i < n; i++)
    if (!m || order[m - 1] >> 16 != order[i] >> 16)
      order[m++] = order[i];
  return m;
}

static void copt(struct cell *cell, int present, uint64_t v)
{
  *cell = present ? (struct cell){(int64_t)v, NULL, CELL_INT}
                  : (struct cell){0, NULL, CELL_NULL};
}

/* Insert the rows that wait: a full batch through its multi-row statement;
 * fewer (at a commit), or a full batch that one of its rows made fail (the
 * statement then inserted none), one by one through ONE, so that a bad row
 * costs itself only, with its warning, as unbatched. */
static void flush_rows(struct cl_db *db, struct batch *b, sqlite3_stmt *one)
{
  int n = b->n;
  b->n = 0;
  if (db->failed || !n)
    return;
  if (n == BATCH_ROWS) {
    int k = 1;
    for (int r = 0; r < BATCH_ROWS; r++)
      for (int c = 0; c < b->ncols; c++, k++)
        if (!same_cell(&b->rows[r][c], &b->bound[r][c])) {
          bind_cell(b->many, k, &b->rows[r][c]);
          b->bound[r][c] = b->rows[r][c];
        }
    int rc = sqlite3_step(b->many);
    atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
    if (!row_error(rc)) {
      check(db, rc, "database insert");
      sqlite3_reset(b->many);
      return;
    }
    sqlite3_reset(b->many);
  }
  for (int r = 0; r < n; r++) {
    for (int c = 0; c < b->ncols; c++)
      bind_cell(one, c + 1, &b->rows[r][c]);
    run(db, one);
  }
}

static void add_row(struct cl_db *db, struct batch *b, sqlite3_stmt *one)
{
  if (++b->n == BATCH_ROWS)
    flush_rows(db, b, one);
}

static void flush_batches(struct cl_db *db)
{
#define CL_BATCH_FLUSH(name)                                                   \
  flush_rows(db, &db->name##_rows, db->insert.name);
  CL_BATCHES(CL_BATCH_FLUSH)
#undef CL_BATCH_FLUSH
}

/* meta row KEY (tables.def's CL_META rows) */
static void meta(struct cl_db *db, enum cl_meta key, const char *value)
{
  TXT(db, meta, key, cl_meta_key(key));
  TXT(db, meta, value, value);
  run(db, db->insert.meta);
}

static void meta_int(struct cl_db *db, enum cl_meta key, long long v)
{
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", v);
  meta(db, key, buf);
}

/* ---- opening ---------------------------------------------------------------- */
static char *json_cmdline(void)
{
  char raw[65536];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, raw, sizeof raw) : -1;
  if (fd >= 0)
    close(fd);
  if (n < 0)
    n = 0;
  size_t cap = (size_t)n * 6 + 16, k = 0;
  char *out = malloc(cap);
  if (!out)
    return NULL;
  out[k++] = '[';
  for (ssize_t i = 0; i < n;) {
    if (k > 1)
      out[k++] = ',';
    out[k++] = '"';
    for (; i < n && raw[i]; i++) {
      unsigned char c = (unsigned char)raw[i];
      if (c == '"' || c == '\\') {
        out[k++] = '\\';
        out[k++] = (char)c;
      } else if (c < 0x20) {
        k += (size_t)snprintf(out + k, cap - k, "\\u%04x", c);
      } else {
        out[k++] = (char)c;
      }
    }
    out[k++] = '"';
    i++;
  }
  out[k++] = ']';
  out[k] = 0;
  return out;
}

/* The process's rank in a multi-process job, from the variable its
 * launcher sets (torchrun RANK, Open MPI OMPI_COMM_WORLD_RANK, MPICH and
 * Intel MPI PMI_RANK, PMIx PMIX_RANK; the first set wins), when it is a
 * plain non-negative decimal number; else NULL. */
static const char *launcher_rank(void)
{
  static const char vars[][24] = {"RANK", "OMPI_COMM_WORLD_RANK",
                                     "PMI_RANK", "PMIX_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *v = getenv(vars[i]);
    if (!v || !*v)
      continue;
    if (strlen(v) > 9 || strspn(v, "0123456789") != strlen(v))
      return NULL;
    return v;
  }
  return NULL;
}

static void write_meta(struct cl_db *db)
{
  char buf[4096];
  meta(db, CL_META_format, CL_FORMAT_NAME);
  meta(db, CL_META_cudalens_version, PACKAGE_VERSION);
  meta_int(db, CL_META_pid, getpid());
  meta_int(db, CL_META_ppid, getppid());
  if (!gethostname(buf, sizeof buf - 1)) {
    buf[sizeof buf - 1] = 0;
    meta(db, CL_META_hostname, buf);
  }
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = 0;
    meta(db, CL_META_exe, buf);
  }
  char *cmd = json_cmdline();
  if (cmd)
    meta(db, CL_META_cmdline, cmd);
  free(cmd);
  const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
  if (cvd)
    meta(db, CL_META_cuda_visible_devices, cvd);
  const char *rank = launcher_rank();
  if (rank)
    meta(db, CL_META_rank, rank);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  meta_int(db, CL_META_start_realtime_ns,
           (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
  meta_int(db, CL_META_start_ns, (long long)cl_start_ns);
  meta(db, CL_META_clean_exit, "0");
  meta(db, CL_META_capture, "cupti");
  meta_int(db, CL_META_stack_depth, cl_cfg.stack_depth);
  meta_int(db, CL_META_gpu_activity, cl_cfg.gpu_activity);
  meta_int(db, CL_META_kernel_times, cl_cfg.gpu_activity && cl_cfg.kernel_times);
  if (cl_cfg.bench_phases)
    meta(db, CL_META_bench_phases, "1");
}

static void write_api_table(struct cl_db *db)
{
  for (unsigned i = 0; i < cl_api_count; i++) {
    const struct cl_api *e = &cl_api_table[i];
    I64(db, api, id, i);
    TXT(db, api, name, cl_api_name(e));
    TXT(db, api, domain, e->domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime"
                         : e->domain == CL_DOMAIN_NCCL           ? "nccl"
                                                                 : "driver");
    I64(db, api, cbid, e->cbid);
    TXT(db, api, op, cl_op_name(e->op));
    run(db, db->insert.api);
  }
}

/* PATH with its directory resolved: SQLite's NOFOLLOW refuses a symbolic
 * link anywhere in the name, while only the last component (the file just
 * created) must not be one. */
static int resolve_dir(const char *path, char *out, size_t outsz)
{
  const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
  char dir[4096] = ".", real[PATH_MAX];
  size_t dl = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
  if (dl >= sizeof dir)
    return -1;
  if (dl) {
    memcpy(dir, path, dl);
    dir[dl] = 0;
  }
  if (!realpath(dir, real))
    return -1;
  int n = snprintf(out, outsz, "%s/%s", strcmp(real, "/") ? real : "", name);
  return n < 0 || (size_t)n >= outsz ? -1 : 0;
}

static void disconnect(struct cl_db *db, int one_file)
{
#define CL_INSERT_FINALIZE(name, ...)                                          \
  sqlite3_finalize(db->insert.name);                                           \
  db->insert.name = NULL;
  CL_INSERTS(CL_INSERT_FINALIZE)
#undef CL_INSERT_FINALIZE
#define CL_UPDATE_FINALIZE(name, ...)                                          \
  sqlite3_finalize(db->name);                                                  \
  db->name = NULL;
  CL_UPDATES(CL_UPDATE_FINALIZE)
#undef CL_UPDATE_FINALIZE
#define CL_BATCH_FINALIZE(name)                                                \
  sqlite3_finalize(db->name##_rows.many);                                      \
  db->name##_rows.many = NULL;
  CL_BATCHES(CL_BATCH_FINALIZE)
#undef CL_BATCH_FINALIZE
  /* one self-contained file from here on: readers need no -wal/-shm (a
   * reader holding it open keeps the WAL, which is no loss) */
  if (one_file && !db->failed)
    sqlite3_exec(db->sql, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
  if (sqlite3_close(db->sql) != SQLITE_OK)
    CL_LOG(CL_LOG_WARN, "closing '%s' failed", db->path);
  db->sql = NULL;
}

/* Prepare TEXT into *ST for the life of the connection; 0, or -1 having
 * said why. */
static int prepare(struct cl_db *db, sqlite3_stmt **st, const char *text)
{
  if (!text) {
    CL_LOG(CL_LOG_ERROR, "internal error: a statement too long");
    return -1;
  }
  if (sqlite3_prepare_v3(db->sql, text, -1, SQLITE_PREPARE_PERSISTENT, st,
                         NULL)) {
    CL_LOG(CL_LOG_ERROR, "internal error preparing '%s': %s", text,
           sqlite3_errmsg(db->sql));
    return -1;
  }
  return 0;
}

/* the INSERT of every column of table T (cl_insert_sql), into BUF */
static const char *insert_sql(char buf[static 1024], const char *verb,
                              enum cl_table t, const char *tail)
{
  return cl_insert_sql(buf, 1024, verb, t, tail) < 0 ? NULL : buf;
}

/* The multi-row statement of a batched table, from the text of its
 * single-row statement ONE (which ends in its one row of NCOLS '?'). */
static int prepare_batch(struct cl_db *db, struct batch *b, sqlite3_stmt *one,
                         int ncols)
{
  char text[4096];
  size_t len = strlen(sqlite3_sql(one));
  if (len + (BATCH_ROWS - 1) * (2 + 2 * (size_t)ncols) >= sizeof text) {
    CL_LOG(CL_LOG_ERROR, "internal error: no room for %d rows of '%s'",
           BATCH_ROWS, sqlite3_sql(one));
    return -1;
  }
  memcpy(text, sqlite3_sql(one), len);
  for (int r = 1; r < BATCH_ROWS; r++) {
    text[len++] = ',';
    text[len++] = '(';
    for (int c = 0; c < ncols; c++) {
      text[len++] = '?';
      text[len++] = c + 1 < ncols ? ',' : ')';
    }
  }
  text[len] = 0;
  b->ncols = ncols;
  b->n = 0;
  memset(b->bound, 0, sizeof b->bound); /* a new statement binds NULLs */
  return prepare(db, &b->many, text);
}

/* Open the connection and prepare the statements; 0, or -1 having said
 * why.  create: a new database in memory, with the schema (cl_db_open puts
 * it in place as a file); otherwise the file. */
static int connect(struct cl_db *db, int create)
{
  if (sqlite3_open_v2(create ? ":memory:" : db->sqlpath, &db->sql,
                      create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                   SQLITE_OPEN_NOMUTEX
                             : SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW |
                                   SQLITE_OPEN_NOMUTEX,
                      "unix") != SQLITE_OK) {
    CL_LOG(CL_LOG_ERROR, "cannot open '%s': %s", db->path,
           db->sql ? sqlite3_errmsg(db->sql) : "out of memory");
    sqlite3_close(db->sql);
    db->sql = NULL;
    return -1;
  }
  sqlite3_progress_handler(db->sql, 1000, tick, NULL);
  char *msg = NULL;
  char pragmas[256];
  snprintf(pragmas, sizeof pragmas,
           /* no fsync: the file must survive the process, not the OS;
            * no zeroing of freed space (Debian's SQLite does it by
            * default): a recording deletes next to nothing */
           "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; "
           "PRAGMA secure_delete=OFF; "
           "PRAGMA wal_autocheckpoint=16384; PRAGMA cache_size=-16384; "
           "PRAGMA user_version=%d;",
           CL_SCHEMA_VERSION);
  if (sqlite3_exec(db->sql, pragmas, NULL, NULL, &msg) ||
      (create && sqlite3_exec(db->sql, CL_SCHEMA_SQL, NULL, NULL, &msg))) {
    CL_LOG(CL_LOG_ERROR, "cannot create the schema in '%s': %s", db->path,
           msg ? msg : sqlite3_errmsg(db->sql));
    sqlite3_free(msg);
    sqlite3_close(db->sql);
    db->sql = NULL;
    return -1;
  }
  char text[1024];
#define CL_INSERT_PREPARE(t, verb, tail)                                       \
  if (prepare(db, &db->insert.t, insert_sql(text, verb, CL_TABLE_##t, tail))) {       \
    disconnect(db, 0);                                                         \
    return -1;                                                                 \
  }
  CL_INSERTS(CL_INSERT_PREPARE)
#undef CL_INSERT_PREPARE
#define CL_UPDATE_PREPARE(name, text)                                          \
  if (prepare(db, &db->name, text)) {                                          \
    disconnect(db, 0);                                                         \
    return -1;                                                                 \
  }
  CL_UPDATES(CL_UPDATE_PREPARE)
#undef CL_UPDATE_PREPARE
#define CL_BATCH_PREPARE(name)                                                 \
  if (prepare_batch(db, &db->name##_rows, db->insert.name, CL_NCOLS_##name)) { \
    disconnect(db, 0);                                                         \
    return -1;                                                                 \
  }
  CL_BATCHES(CL_BATCH_PREPARE)
#undef CL_BATCH_PREPARE
  return 0;
}

/* The file put in place (named path) that could not become the recording
 * goes again, unless something else now has its name, and so do the WAL
 * and shared-memory files SQLite made for it (issue 24, defect 7: a full
 * disk stayed full with them). */
static void remove_published(const char *path, const struct stat *made)
{
  struct stat now;
  if (lstat(path, &now) || made->st_dev != now.st_dev ||
      made->st_ino != now.st_ino)
    return;
  char side[4096 + 8];
  static const char suffixes[][12] = {"-wal", "-shm", "-journal"};
  for (unsigned i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
    snprintf(side, sizeof side, "%s%s", path, suffixes[i]);
    if (!lstat(side, &now) && S_ISREG(now.st_mode) &&
        now.st_dev == made->st_dev && now.st_uid == made->st_uid)
      unlink(side);
  }
  unlink(path);
}

/* The schema and what is known at the start (meta, the API table), made
 * in memory and put in place as a file at once (cl_outpath_publish: never
 * a file under the recording's name that is not one, issue 24 defect 2);
 * then the file is opened for the recording.  0, or -1 having said why. */
static int create_file(struct cl_db *db, const char *expanded)
{
  char err[512];
  snprintf(db->path, sizeof db->path, "%s", expanded); /* for messages */
  if (connect(db, 1))
    return -1;
  cl_db_begin(db);
  write_meta(db);
  write_api_table(db);
  cl_db_commit(db);
  sqlite3_int64 size = 0;
  unsigned char *image =
      db->failed ? NULL : sqlite3_serialize(db->sql, "main", &size, 0);
  disconnect(db, 0);
  /* in WAL mode from the start (the header's read and write versions, 2):
   * opening the file then writes nothing but the WAL, no rollback journal
   * that a kill would leave hot */
  if (image && size >= 100)
    image[18] = image[19] = 2;
  if (!image) {
    CL_LOG(CL_LOG_ERROR, "cannot make the recording's schema for '%s'",
           expanded);
    return -1;
  }
  int r = cl_outpath_publish(expanded, image, (size_t)size, db->path,
                             sizeof db->path, err, sizeof err);
  sqlite3_free(image);
  if (r) {
    CL_LOG(CL_LOG_ERROR, "%s", err);
    return -1;
  }
  struct stat made;
  if (lstat(db->path, &made)) {
    CL_LOG(CL_LOG_ERROR, "'%s' went away: %s", db->path, strerror(errno));
    return -1;
  }
  if (resolve_dir(db->path, db->sqlpath, sizeof db->sqlpath)) {
    CL_LOG(CL_LOG_ERROR, "cannot resolve the folder of '%s'", db->path);
    remove_published(db->path, &made);
    return -1;
  }
  if (connect(db, 0)) {
    remove_published(db->path, &made);
    return -1;
  }
  return 0;
}

struct cl_db *cl_db_open(void)
{
  char expanded[4096], err[512];
  if (cl_sqlite_load(err, sizeof err)) { /* loaded already when recording */
    CL_LOG(CL_LOG_ERROR, "%s; this run is not recorded", err);
    return NULL;
  }
  if (cl_dbfd_install())
    CL_LOG(CL_LOG_WARN, "cannot move the recording's descriptors away from "
                        "the program's");
  if (cl_outpath_expand(cl_cfg.output, getpid(), expanded, sizeof expanded, err,
                        sizeof err)) {
    CL_LOG(CL_LOG_ERROR, "CUDALENS_OUTPUT: %s", err);
    return NULL;
  }
  if (expanded[0] != '/' && cl_cfg.cwd[0]) {
    char abs[4096 + 4096 + 2];
    snprintf(abs, sizeof abs, "%s/%s", cl_cfg.cwd, expanded);
    if (strlen(abs) >= sizeof expanded) {
      CL_LOG(CL_LOG_ERROR, "output path too long");
      return NULL;
    }
    strcpy(expanded, abs);
  }
  struct cl_db *db = calloc(1, sizeof *db);
  if (!db)
    return NULL;
  if (create_file(db, expanded)) {
    free(db);
    return NULL;
  }
  current = db;
  CL_LOG(CL_LOG_INFO, "recording to %s", db->path);
  cl_manifest_recording(db->path);
  return db;
}

int cl_db_begin(struct cl_db *db)
{
  char why[256];
  if (!db->failed && cl_dbfd_check(why, sizeof why))
    fail(db, "%s", why);
  exec_sql(db, "BEGIN", "starting a transaction");
  return db->failed ? -1 : 0;
}

static void put_string(uint32_t id, const char *s, void *arg)
{
  struct cl_db *db = arg;
  I64(db, strings, id, id);
  TXT(db, strings, value, s);
  run(db, db->insert.strings);
}

int cl_db_commit(struct cl_db *db)
{
  flush_batches(db);
  if (!db->failed)
    cl_strings_drain(&db->strings_written, put_string, db);
  exec_sql(db, "COMMIT", "database commit");
  if (!db->failed && !db->retrying)
    db->handed_committed = db->handed;
  else if (!db->loss_written)
    note_loss(db);
  return db->failed ? -1 : 0;
}

int cl_db_counts_losses(const struct cl_db *db)
{
  return db->failed && db->write_error;
}

int cl_db_failed(const struct cl_db *db) { return db->failed; }

/* ---- call stacks and modules ------------------------------------------------- */
/* a stack's key in the writer's table: FNV's multiply over whole frames,
 * not bytes (one step a frame) */
static uint64_t hash_frames(const uint64_t *f, unsigned n)
{
  uint64_t h = 1469598103934665603ULL ^ n;
  for (unsigned i = 0; i < n; i++)
    h = (h ^ f[i]) * 1099511628211ULL;
  return h ? h : 1;
}

static int known_address(struct cl_db *db, uint64_t a)
{
  for (int i = 0; i < db->nmods; i++)
    if (a >= db->mods[i].start && a < db->mods[i].end)
      return 1;
  return 0;
}

static void refresh_modules(struct cl_db *db)
{
  struct cl_module *mods;
  int n = cl_modules_scan(&mods);
  for (int i = 0; i < n; i++) {
    int seen = 0;
    for (int j = 0; j < db->nmods && !seen; j++)
      seen = db->mods[j].start == mods[i].start &&
             !strcmp(db->mods[j].path, mods[i].path);
    if (seen)
      continue;
    NUL(db, modules, id);
    TXT(db, modules, path, mods[i].path);
    I64(db, modules, start, mods[i].start);
    I64(db, modules, end, mods[i].end);
    I64(db, modules, bias, mods[i].bias);
    if (mods[i].build_id[0])
      TXT(db, modules, build_id, mods[i].build_id);
    else
      NUL(db, modules, build_id);
    run(db, db->insert.modules);
  }
  /* keep the newest view: modules unloaded since are still in the table */
  cl_modules_free(db->mods, db->nmods);
  db->mods = mods;
  db->nmods = n;
}

static int grow_stacks(struct cl_db *db)
{
  uint32_t nc = db->capstacks ? db->capstacks * 2 : 4096;
  struct stack_entry *t = calloc(nc, sizeof *t);
  if (!t)
    return -1;
  for (uint32_t i = 0; i < db->capstacks; i++) {
    struct stack_entry *e = &db->stacks[i];
    if (!e->id)
      continue;
    uint32_t j = (uint32_t)e->hash & (nc - 1);
    while (t[j].id)
      j = (j + 1) & (nc - 1);
    t[j] = *e;
  }
  free(db->stacks);
  db->stacks = t;
  db->capstacks = nc;
  return 0;
}

static uint32_t stack_id(struct cl_db *db, const uint64_t *frames, unsigned n)
{
  if (!n)
    return 0;
  if ((db->nstacks + 1) * 2 > db->capstacks && grow_stacks(db))
    return 0;
  uint64_t h = hash_frames(frames, n);
  uint32_t j = (uint32_t)h & (db->capstacks - 1);
  for (; db->stacks[j].id; j = (j + 1) & (db->capstacks - 1)) {
    struct stack_entry *e = &db->stacks[j];
    if (e->hash == h && e->n == n && !memcmp(e->frames, frames, n * 8))
      return e->id;
  }
  uint64_t *copy = malloc(n * 8);
  if (!copy)
    return 0;
  memcpy(copy, frames, n * 8);
  uint32_t id = ++db->nstacks;
  db->stacks[j] = (struct stack_entry){h, id, n, copy};
  unsigned char blob[CL_MAX_FRAMES * 8];
  for (unsigned i = 0; i < n; i++)
    for (unsigned b = 0; b < 8; b++)
      blob[i * 8 + b] = (unsigned char)(frames[i] >> (8 * b));
  I64(db, stacks, id, id);
  BLB(db, stacks, frames, blob, (int)(n * 8));
  run(db, db->insert.stacks);
  for (unsigned i = 0; i < n; i++)
    if (!known_address(db, frames[i])) {
      refresh_modules(db);
      break;
    }
  return id;
}

static void note_thread(struct cl_db *db, uint32_t tid)
{
  for (uint32_t i = 0; i < db->ntids; i++)
    if (db->tids[i] == tid)
      return;
  if (db->ntids == db->captids) {
    uint32_t nc = db->captids ? db->captids * 2 : 16;
    uint32_t *t = realloc(db->tids, nc * sizeof *t);
    if (!t)
      return;
    db->tids = t;
    db->captids = nc;
  }
  db->tids[db->ntids++] = tid;
  char path[64], name[64] = "";
  snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = read(fd, name, sizeof name - 1);
    name[n > 0 ? n : 0] = 0;
    char *nl = strchr(name, '\n');
    if (nl)
      *nl = 0;
    close(fd);
  }
  I64(db, threads, tid, tid);
  if (name[0])
    TXT(db, threads, name, name);
  else
    NUL(db, threads, name);
  run(db, db->insert.threads);
}

/* ---- one record ---------------------------------------------------------------- */

static int has_stream(enum cl_op op, unsigned flags)
{
  switch (op) {
  case CL_OP_COPY: case CL_OP_MEMSET: case CL_OP_KERNEL:
  case CL_OP_EVENT_RECORD: case CL_OP_STREAM_WAIT_EVENT:
  case CL_OP_SYNC_STREAM: case CL_OP_QUERY_STREAM: case CL_OP_HOST_FUNC:
  case CL_OP_GRAPH_LAUNCH: case CL_OP_CAPTURE_BEGIN: case CL_OP_CAPTURE_END:
  case CL_OP_PREFETCH: case CL_OP_STREAM_CREATE: case CL_OP_STREAM_DESTROY:
  case CL_OP_COLLECTIVE:
    return 1;
  case CL_OP_ALLOC: case CL_OP_FREE:
    return (flags & CL_ASYNC) != 0;
  default:
    return 0;
  }
}

static void put_call(struct cl_db *db, const struct cl_call *c,
                     const struct cl_karg *kargs)
{
  const struct cl_api *api = &cl_api_table[c->api];
  const struct cl_args *a = &c->a;
  enum cl_op op = api->op;
  int ok = c->result == 0, streamed = has_stream(op, api->flags);
  uint64_t stream = cl_stream_of(api, a->stream);
  int dev_known = c->device >= 0;
  note_thread(db, c->tid);
  uint32_t stack = stack_id(db, c->frames, c->nframes);

  struct cell *row = NEXT_ROW(db, calls);
  CI(row, calls, seq, c->seq);
  CI(row, calls, api, c->api);
  CI(row, calls, tid, c->tid);
  CI(row, calls, start_ns, c->start_ns);
  CI(row, calls, end_ns, c->end_ns);
  CI(row, calls, result, c->result);
  COPT(row, calls, device, dev_known, (uint64_t)(int64_t)c->device);
  COPT(row, calls, context, c->context != 0, c->context);
  COPT(row, calls, stream, streamed, stream);
  CI(row, calls, correlation, c->correlation);
  COPT(row, calls, driver_correlation, c->driver_correlation != 0,
       c->driver_correlation);
  COPT(row, calls, stack, stack != 0, stack);
  COPT(row, calls, pystack, c->pystack != 0, c->pystack);
  ADD_ROW(db, calls);

  const char *sk = cl_sync_kind_name(op);
  if (sk) { /* recorded whether or not it succeeded: complete says */
    row = NEXT_ROW(db, syncs);
    CI(row, syncs, seq, c->seq);
    CT(row, syncs, kind, sk);
    COPT(row, syncs, stream,
         op == CL_OP_SYNC_STREAM || op == CL_OP_QUERY_STREAM, stream);
    COPT(row, syncs, event, op == CL_OP_SYNC_EVENT || op == CL_OP_QUERY_EVENT,
         a->event);
    CI(row, syncs, complete, ok);
    ADD_ROW(db, syncs);
    return;
  }
  /* NCCL's ncclInProgress: a non-blocking communicator's call, under way */
  if (!ok && !(c->result == CL_NCCL_IN_PROGRESS && (op == CL_OP_COLLECTIVE || op == CL_OP_COMM_CREATE)))
    return;
  switch (op) {
  case CL_OP_ALLOC:
  case CL_OP_FREE:
    /* a free's size is the range unmapped (cuMemUnmap); the device is the
     * memory's when the driver told it (a mapping's physical memory, IPC),
     * else the calling context's */
    row = NEXT_ROW(db, memory);
    CI(row, memory, seq, c->seq);
    CT(row, memory, op, op == CL_OP_ALLOC ? "alloc" : "free");
    CI(row, memory, address, a->dst);
    COPT(row, memory, size, op == CL_OP_ALLOC || a->bytes, a->bytes);
    CT(row, memory, kind, cl_memkind_name(a->memkind));
    if (a->has_device)
      COPT(row, memory, device, a->device >= 0, (uint64_t)(int64_t)a->device);
    else
      COPT(row, memory, device, dev_known, (uint64_t)(int64_t)c->device);
    COPT(row, memory, flags, op == CL_OP_ALLOC, a->flags);
    COPT(row, memory, stream, streamed, stream);
    ADD_ROW(db, memory);
    /* what the allocation belongs to: a pool, a physical allocation */
    if (op == CL_OP_ALLOC && a->handle &&
        (a->memkind == CL_MEMKIND_DEVICE_ASYNC ||
         a->memkind == CL_MEMKIND_MAPPED)) {
      I64(db, alloc_handles, seq, c->seq);
      TXT(db, alloc_handles, kind,
          a->memkind == CL_MEMKIND_MAPPED ? "physical" : "pool");
      I64(db, alloc_handles, handle, a->handle);
      run(db, db->insert.alloc_handles);
    }
    break;
  case CL_OP_ACCESS:
    /* one row per device named: a pool's (handle) or a mapped range's */
    for (int d = 0; d < 64; d++) {
      if (!(a->acc_named >> d & 1))
        continue;
      I64(db, mem_access, seq, c->seq);
      TXT(db, mem_access, target, a->dst ? "range" : "pool");
      I64(db, mem_access, address, a->dst ? a->dst : a->handle);
      OPT(db, mem_access, size, a->dst != 0, a->bytes);
      I64(db, mem_access, device, d);
      I64(db, mem_access, flags,
          (a->acc_write >> d & 1) ? 3 : (a->acc_read >> d & 1) ? 1 : 0);
      run(db, db->insert.mem_access);
    }
    break;
  case CL_OP_COPY:
  case CL_OP_MEMSET: {
    /* a copy's devices: those of its memory where the call or the shim
     * knew them (capture.c), else the calling device */
    int copy = op == CL_OP_COPY, mem_devs = copy && a->has_device;
    row = NEXT_ROW(db, transfers);
    CI(row, transfers, seq, c->seq);
    CT(row, transfers, op, copy ? "copy" : "memset");
    if (copy)
      CT(row, transfers, direction, cl_dir_name(a->dir));
    else
      CN(row, transfers, direction);
    CI(row, transfers, dst, a->dst);
    COPT(row, transfers, src, copy, a->src);
    CI(row, transfers, bytes, a->bytes);
    COPT(row, transfers, value, !copy, a->value);
    CI(row, transfers, async, (api->flags & CL_ASYNC) != 0);
    CI(row, transfers, stream, stream);
    COPT(row, transfers, src_device, mem_devs || dev_known,
         mem_devs ? (uint64_t)(int64_t)a->peer : (uint64_t)(int64_t)c->device);
    COPT(row, transfers, dst_device, mem_devs || dev_known,
         mem_devs ? (uint64_t)(int64_t)a->device : (uint64_t)(int64_t)c->device);
    ADD_ROW(db, transfers);
    break;
  }
  case CL_OP_KERNEL:
    row = NEXT_ROW(db, kernels);
    CI(row, kernels, seq, c->seq);
    COPT(row, kernels, name, c->name != 0, c->name);
    CI(row, kernels, grid_x, a->grid[0]);
    CI(row, kernels, grid_y, a->grid[1]);
    CI(row, kernels, grid_z, a->grid[2]);
    CI(row, kernels, block_x, a->block[0]);
    CI(row, kernels, block_y, a->block[1]);
    CI(row, kernels, block_z, a->block[2]);
    CI(row, kernels, shared_mem, a->shmem);
    CI(row, kernels, stream, stream);
    ADD_ROW(db, kernels);
    int cut = c->kargs_truncated; /* words not kept */
    if (c->nkargs) {
      /* one row: the words in (param, offset) order, each (param,
       * offset) once (the first given), as kernel_args' key kept them */
      unsigned n = karg_order(kargs, c->nkargs, db->karg_order);
      unsigned row_n = db->launch_args_rows.n;
      unsigned char *w = db->launch_args_buf[row_n];
      if (n > CL_MAX_KARGS && !db->launch_args_big[row_n] &&
          !(db->launch_args_big[row_n] =
                malloc(CL_LAUNCH_KARGS * CL_LAUNCH_ARG_SIZE))) {
        n = CL_MAX_KARGS; /* no memory: the first words */
        cut = 1;
      }
      if (n > CL_MAX_KARGS)
        w = db->launch_args_big[row_n];
      for (unsigned j = 0; j < n; j++) {
        const struct cl_karg *k = &kargs[db->karg_order[j] & 0xffff];
        cl_launch_arg_put(w + j * CL_LAUNCH_ARG_SIZE, k->param, k->offset,
                          k->uninit ? CL_LAUNCH_ARG_UNINIT : 0, k->value);
      }
      row = NEXT_ROW(db, launch_args);
      CI(row, launch_args, seq, c->seq);
      CB(row, launch_args, args, w, n * CL_LAUNCH_ARG_SIZE);
      ADD_ROW(db, launch_args);
    }
    if (cut)
      cl_db_drop(db, CL_DROP_KARGS, 1);
    break;
  case CL_OP_STREAM_CREATE:
    I64(db, streams, seq, c->seq);
    I64(db, streams, handle, a->stream);
    OPT(db, streams, device, dev_known, (uint64_t)(int64_t)c->device);
    I64(db, streams, flags, a->flags);
    I64(db, streams, priority, a->priority);
    NUL(db, streams, destroyed_seq);
    run(db, db->insert.streams);
    break;
  case CL_OP_EVENT_CREATE:
    I64(db, events, seq, c->seq);
    I64(db, events, handle, a->event);
    I64(db, events, flags, a->flags);
    OPT(db, events, device, dev_known, (uint64_t)(int64_t)c->device);
    NUL(db, events, destroyed_seq);
    run(db, db->insert.events);
    break;
  case CL_OP_STREAM_DESTROY:
  case CL_OP_EVENT_DESTROY: {
    sqlite3_stmt *st =
        op == CL_OP_STREAM_DESTROY ? db->stream_gone : db->event_gone;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)c->seq);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)(op == CL_OP_STREAM_DESTROY
                                                  ? a->stream
                                                  : a->event));
    run(db, st);
    break;
  }
  case CL_OP_EVENT_RECORD:
    row = NEXT_ROW(db, event_records);
    CI(row, event_records, seq, c->seq);
    CI(row, event_records, event, a->event);
    CI(row, event_records, stream, stream);
    ADD_ROW(db, event_records);
    break;
  case CL_OP_STREAM_WAIT_EVENT:
    row = NEXT_ROW(db, stream_waits);
    CI(row, stream_waits, seq, c->seq);
    CI(row, stream_waits, stream, stream);
    CI(row, stream_waits, event, a->event);
    ADD_ROW(db, stream_waits);
    break;
  case CL_OP_SET_DEVICE: case CL_OP_SET_CONTEXT: case CL_OP_RESET_DEVICE:
  case CL_OP_PEER_ENABLE: case CL_OP_PEER_DISABLE:
    row = NEXT_ROW(db, device_ops);
    CI(row, device_ops, seq, c->seq);
    CT(row, device_ops, op, cl_op_name(op));
    if (a->has_device)
      CI(row, device_ops, device, a->device);
    else
      COPT(row, device_ops, device, dev_known, (uint64_t)(int64_t)c->device);
    COPT(row, device_ops, peer,
         op == CL_OP_PEER_ENABLE || op == CL_OP_PEER_DISABLE,
         (uint64_t)(int64_t)a->peer);
    ADD_ROW(db, device_ops);
    break;
  case CL_OP_COLLECTIVE: {
    const struct cl_coll *k = &c->coll;
    I64(db, collectives, seq, c->seq);
    I64(db, collectives, comm, k->comm);
    OPT(db, collectives, comm_id, k->comm_id != 0, k->comm_id);
    TXT(db, collectives, kind, cl_nccl_kind(c->api - cl_api_nccl_first));
    OPT(db, collectives, rank, k->rank >= 0, (uint64_t)(int64_t)k->rank);
    OPT(db, collectives, nranks, k->nranks >= 0, (uint64_t)(int64_t)k->nranks);
    I64(db, collectives, send, k->send);
    I64(db, collectives, recv, k->recv);
    I64(db, collectives, count, k->count);
    I64(db, collectives, datatype, k->datatype);
    OPT(db, collectives, redop, k->redop >= 0, (uint64_t)(int64_t)k->redop);
    OPT(db, collectives, root, k->root >= 0, (uint64_t)(int64_t)k->root);
    I64(db, collectives, read_addr, k->read_addr);
    I64(db, collectives, read_bytes, k->read_bytes);
    I64(db, collectives, write_addr, k->write_addr);
    I64(db, collectives, write_bytes, k->write_bytes);
    I64(db, collectives, grouped, k->grouped);
    I64(db, collectives, stream, stream);
    run(db, db->insert.collectives);
    break;
  }
  case CL_OP_COMM_CREATE: {
    const struct cl_coll *k = &c->coll;
    I64(db, communicators, seq, c->seq);
    I64(db, communicators, handle, k->comm);
    OPT(db, communicators, id, k->comm_id != 0, k->comm_id);
    OPT(db, communicators, rank, k->rank >= 0, (uint64_t)(int64_t)k->rank);
    OPT(db, communicators, nranks, k->nranks >= 0,
        (uint64_t)(int64_t)k->nranks);
    OPT(db, communicators, device, dev_known, (uint64_t)(int64_t)c->device);
    OPT(db, communicators, parent, k->parent != 0, k->parent);
    NUL(db, communicators, destroyed_seq);
    run(db, db->insert.communicators);
    break;
  }
  case CL_OP_COMM_DESTROY:
    sqlite3_bind_int64(db->communicator_gone, 1, (sqlite3_int64)c->seq);
    sqlite3_bind_int64(db->communicator_gone, 2, (sqlite3_int64)c->coll.comm);
    run(db, db->communicator_gone);
    break;
  case CL_OP_HOST_FUNC: case CL_OP_GRAPH_LAUNCH: case CL_OP_CAPTURE_BEGIN:
  case CL_OP_CAPTURE_END: case CL_OP_PREFETCH:
    row = NEXT_ROW(db, stream_ops);
    CI(row, stream_ops, seq, c->seq);
    CT(row, stream_ops, op, cl_op_name(op));
    CI(row, stream_ops, stream, stream);
    CI(row, stream_ops, handle, op == CL_OP_PREFETCH ? a->dst : a->handle);
    ADD_ROW(db, stream_ops);
    break;
  default:
    break;
  }
}

/* (names in rows of characters, here and in the other small tables of
 * this file: nothing for the loader to relocate in every process; issue
 * 24, item 10) */
static const char *cupti_memkind(uint8_t k)
{
  static const char names[][12] = {"unknown", "pageable", "pinned",
                                      "device",  "array",    "managed",
                                      "device",  "managed"};
  return k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

static const char *cupti_copykind(uint8_t k)
{
  static const char names[][8] = {"unknown", "htod", "dtoh", "htoa",
                                      "atoh",    "atoa", "atod", "dtoa",
                                      "dtod",    "htoh", "ptop"};
  return k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

static void put_activity(struct cl_db *db, const struct cl_activity *x)
{
  static const char kinds[][12] = {"", "kernel", "memcpy", "memset",
                                      "memcpy-p2p"};
  struct cell *row = NEXT_ROW(db, activity);
  int copy = x->kind == CL_ACT_MEMCPY || x->kind == CL_ACT_P2P;
  CI(row, activity, correlation, x->correlation);
  CT(row, activity, kind, kinds[x->kind]);
  CI(row, activity, start_ns, x->start_ns);
  CI(row, activity, end_ns, x->end_ns);
  CI(row, activity, device, x->device);
  CI(row, activity, context, x->context);
  CI(row, activity, stream_id, x->stream_id);
  COPT(row, activity, bytes, x->kind != CL_ACT_KERNEL, x->bytes);
  if (copy) {
    CT(row, activity, copy_kind, cupti_copykind(x->copy_kind));
    CT(row, activity, src_kind, cupti_memkind(x->src_kind));
  } else {
    CN(row, activity, copy_kind);
    CN(row, activity, src_kind);
  }
  if (x->kind != CL_ACT_KERNEL)
    CT(row, activity, dst_kind, cupti_memkind(x->dst_kind));
  else
    CN(row, activity, dst_kind);
  COPT(row, activity, src_device, x->src_device >= 0,
       (uint64_t)(int64_t)x->src_device);
  COPT(row, activity, dst_device, x->dst_device >= 0,
       (uint64_t)(int64_t)x->dst_device);
  COPT(row, activity, name, x->name != 0, x->name);
  ADD_ROW(db, activity);
}

/* a graph's node G; a kernel node's words at KARGS (nkargs) */
static void put_graph_node(struct cl_db *db, const struct cl_gnode_rec *g,
                           const struct cl_karg *kargs)
{
  I64(db, graph_nodes, seq, g->seq);
  I64(db, graph_nodes, node, g->index);
  TXT(db, graph_nodes, type, cl_gnode_name(g->type));
  I64(db, graph_nodes, handle, g->handle);
  OPT(db, graph_nodes, added, g->added != 0, g->added);
  OPT(db, graph_nodes, name, g->name != 0, g->name);
  I64(db, graph_nodes, dst, g->dst);
  I64(db, graph_nodes, src, g->src);
  I64(db, graph_nodes, bytes, g->bytes);
  I64(db, graph_nodes, value, g->value);
  TXT(db, graph_nodes, direction, cl_dir_name((enum cl_dir)g->dir));
  I64(db, graph_nodes, event, g->event);
  run(db, db->insert.graph_nodes);
  for (unsigned i = 0; i < g->nkargs; i++) {
    I64(db, graph_args, seq, g->seq);
    I64(db, graph_args, node, g->index);
    I64(db, graph_args, param, kargs[i].param);
    I64(db, graph_args, offset, kargs[i].offset);
    I64(db, graph_args, value, kargs[i].value);
    run(db, db->insert.graph_args);
    /* the marked words of a parameter are its last (kparams.c): from the
     * first of them on */
    if (kargs[i].uninit && (i == 0 || kargs[i - 1].param != kargs[i].param ||
                            !kargs[i - 1].uninit)) {
      I64(db, graph_uninit_params, seq, g->seq);
      I64(db, graph_uninit_params, node, g->index);
      I64(db, graph_uninit_params, param, kargs[i].param);
      I64(db, graph_uninit_params, from_offset, kargs[i].offset);
      run(db, db->insert.graph_uninit_params);
    }
  }
  if (g->kargs_truncated)
    cl_db_drop(db, CL_DROP_KARGS, 1);
}

void cl_db_put(struct cl_db *db, const struct cl_record *r,
               const struct cl_karg *kargs)
{
  db->handed++;
  switch (r->type) {
  case CL_REC_CALL:
    put_call(db, &r->u.call, kargs ? kargs : r->u.call.kargs);
    break;
  case CL_REC_GRAPH_NODE:
    put_graph_node(db, &r->u.gnode, kargs ? kargs : r->u.gnode.kargs);
    break;
  case CL_REC_ACTIVITY:
    put_activity(db, &r->u.act);
    break;
  case CL_REC_CONTEXT: {
    const struct cl_context_rec *c = &r->u.ctx;
    if (c->destroyed) {
      sqlite3_bind_int64(db->context_gone, 1, (sqlite3_int64)c->seq);
      sqlite3_bind_int64(db->context_gone, 2, (sqlite3_int64)c->uid);
      run(db, db->context_gone);
      break;
    }
    I64(db, contexts, id, c->uid);
    OPT(db, contexts, device, c->device >= 0, (uint64_t)(int64_t)c->device);
    I64(db, contexts, handle, c->handle);
    I64(db, contexts, created_seq, c->seq);
    NUL(db, contexts, destroyed_seq);
    run(db, db->insert.contexts);
    break;
  }
  case CL_REC_DEVICE: {
    const struct cl_device_rec *d = &r->u.dev;
    I64(db, devices, ordinal, d->ordinal);
    TXT(db, devices, name, d->name);
    TXT(db, devices, uuid, d->uuid);
    TXT(db, devices, pci_bus_id, d->pci_bus_id);
    OPT(db, devices, cc_major, d->cc_major >= 0, (uint64_t)(int64_t)d->cc_major);
    OPT(db, devices, cc_minor, d->cc_minor >= 0, (uint64_t)(int64_t)d->cc_minor);
    OPT(db, devices, total_mem, d->total_mem != 0, d->total_mem);
    run(db, db->insert.devices);
    break;
  }
  case CL_REC_DROP:
    cl_db_drop(db, r->u.drop.reason, r->u.drop.count);
    break;
  case CL_REC_THREAD: {
    const struct cl_thread_rec *t = &r->u.thread;
    note_thread(db, t->tid);
    I64(db, thread_edges, seq, t->seq);
    TXT(db, thread_edges, kind, t->kind == CL_THREAD_JOIN ? "join" : "create");
    I64(db, thread_edges, tid, t->tid);
    I64(db, thread_edges, other, t->other);
    run(db, db->insert.thread_edges);
    break;
  }
  case CL_REC_NAME: {
    const struct cl_name_rec *n = &r->u.name;
    I64(db, names, seq, n->seq);
    TXT(db, names, kind, n->kind == CL_NAME_THREAD ? "thread" : "stream");
    I64(db, names, handle, n->handle);
    TXT(db, names, name, n->name);
    run(db, db->insert.names);
    break;
  }
  case CL_REC_GRAPH_EXEC: {
    const struct cl_gexec_rec *g = &r->u.gexec;
    I64(db, graph_execs, seq, g->seq);
    I64(db, graph_execs, exec, g->exec);
    I64(db, graph_execs, graph, g->graph);
    I64(db, graph_execs, nodes, g->nodes);
    I64(db, graph_execs, edges, g->edges);
    I64(db, graph_execs, device, g->device);
    I64(db, graph_execs, truncated, g->truncated);
    run(db, db->insert.graph_execs);
    break;
  }
  case CL_REC_GRAPH_EDGE: {
    const struct cl_gedge_rec *g = &r->u.gedge;
    I64(db, graph_edges, seq, g->seq);
    I64(db, graph_edges, from_node, g->from);
    I64(db, graph_edges, to_node, g->to);
    run(db, db->insert.graph_edges);
    break;
  }
  case CL_REC_HOSTFN: {
    const struct cl_hostfn_rec *h = &r->u.hostfn;
    note_thread(db, h->tid);
    I64(db, host_func_runs, seq, h->seq);
    I64(db, host_func_runs, tid, h->tid);
    I64(db, host_func_runs, correlation, h->correlation);
    I64(db, host_func_runs, start_ns, h->ns);
    run(db, db->insert.host_func_runs);
    break;
  }
  }
}

static void put_host_access(const struct cl_host_access *h, void *arg)
{
  struct cl_db *db = arg;
  note_thread(db, h->tid);
  uint32_t stack = stack_id(db, h->frames, h->nframes);
  I64(db, host_accesses, seq, h->seq);
  I64(db, host_accesses, tid, h->tid);
  TXT(db, host_accesses, kind, h->kind);
  I64(db, host_accesses, address, h->address);
  OPT(db, host_accesses, copy_seq, h->copy_seq != 0, h->copy_seq);
  OPT(db, host_accesses, stack, stack != 0, stack);
  OPT(db, host_accesses, pystack, h->pystack != 0, h->pystack);
  run(db, db->insert.host_accesses);
}

void cl_db_put_host_accesses(struct cl_db *db)
{
  uint64_t lost = 0;
  cl_hostguard_drain(put_host_access, db, &lost);
  if (lost)
    cl_db_drop(db, "host-accesses", lost);
}

/* meta ring_full_waits and ring_full_wait_ns, when the count moved */
void cl_db_put_waits(struct cl_db *db)
{
  uint64_t count, ns;
  cl_ring_waits(&count, &ns);
  if (count == db->waits_written)
    return;
  meta_int(db, CL_META_ring_full_waits, (long long)count);
  meta_int(db, CL_META_ring_full_wait_ns, (long long)ns);
  db->waits_written = count;
}

void cl_db_drop(struct cl_db *db, const char *reason, uint64_t n)
{
  /* whole records lost (not the pointer arguments beyond those kept, nor
   * removed allocations kparams.c could not keep for resolving them) */
  if (strcmp(reason, CL_DROP_KARGS) && strcmp(reason, CL_DROP_ALLOC_HISTORY)) {
    if (!db->lost)
      db->lost_reason = reason;
    db->lost += n;
  }
  TXT(db, drops, reason, reason);
  I64(db, drops, count, n);
  run(db, db->insert.drops);
}

/* records were dropped: the launcher's --fail-on must not pass this
 * process (the recording counts them in its drops table) */
static void tell_lost(struct cl_db *db)
{
  if (!db->lost)
    return;
  char why[4400];
  snprintf(why, sizeof why, "%llu record%s dropped (%s): %s is incomplete",
           (unsigned long long)db->lost, db->lost == 1 ? " was" : "s were",
           db->lost_reason, db->path);
  cl_manifest_problem(why);
  db->lost = 0;
}

static void write_end(struct cl_db *db, const char *end, int clean)
{
  uint64_t lost = 0;
  if (db->failed) {
    /* after a write error, what was lost and the end, if they fit now */
    if (!db->write_error || !db->sql)
      return;
    sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
    lost = db->handed - db->handed_committed - db->loss_written;
    db->failed = 0;
    db->retrying = 1;
  }
  cl_db_begin(db);
  if (lost)
    cl_db_drop(db, "write-error", lost);
  tell_lost(db);
  cl_db_put_waits(db);
  meta_int(db, CL_META_end_ns, (long long)(cl_end_ns ? cl_end_ns : cl_now_ns()));
  meta(db, CL_META_end, end);
  meta(db, CL_META_clean_exit, clean ? "1" : "0");
  meta_int(db, CL_META_last_seq, (long long)atomic_load(&cl_seq.last));
  if (!db->retrying) /* no room for indexes after a write error */
    exec_sql(db, CL_INDEX_SQL, "indexing");
  cl_db_commit(db);
}

int cl_db_suspend(struct cl_db *db, const char *end)
{
  write_end(db, end, 1);
  if (db->failed)
    return -1;
  disconnect(db, 1);
  return 0;
}

int cl_db_resume(struct cl_db *db)
{
  if (connect(db, 0)) {
    db->failed = 1; /* connect said why */
    return -1;
  }
  cl_db_begin(db);
  meta(db, CL_META_clean_exit, "0");
  exec_sql(db, "DELETE FROM meta WHERE key IN ('end', 'end_ns', 'last_seq')",
       "reopening the recording");
  return cl_db_commit(db);
}

void cl_db_close(struct cl_db *db, const char *end, int clean)
{
  if (db->sql && (!db->failed || db->write_error))
    write_end(db, end ? end : "write-error", clean);
  if (db->sql && (!db->failed || db->write_error)) {
    disconnect(db, !db->failed); /* the WAL stays where it holds data */
  } else if (db->sql) {
    /* the connection is left as it is: closing it would write to
     * descriptors that may now be the program's; ours are closed */
    cl_dbfd_release();
  }
  if (current == db)
    current = NULL;
  for (uint32_t i = 0; i < db->capstacks; i++)
    free(db->stacks[i].frames);
  free(db->stacks);
  cl_modules_free(db->mods, db->nmods);
  free(db->tids);
  for (int i = 0; i < BATCH_ROWS; i++)
    free(db->launch_args_big[i]);
  free(db);
}

/* The child of fork() never uses its parent's connection: forgotten, not
 * closed (closing could checkpoint or delete the parent's WAL); the child's
 * copies of its descriptors are closed. */
void cl_db_forget_after_fork(void)
{
  current = NULL;
  cl_dbfd_release();
}

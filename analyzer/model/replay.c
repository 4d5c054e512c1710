/* replay.c - the one seq-ordered reading of a recording's calls (see
 * replay.h).  The recording is read once: `calls` scanned in seq order,
 * merged with a seq-ordered scan of each table that describes calls
 * (transfers, memory, device_ops, events, event_records, stream_waits,
 * syncs, kernels, kernel_args), each row turned into a struct replay_op.
 * The merge gives what a LEFT JOIN on seq gives (every such table has seq
 * as its primary key) without a B-tree search per table per call.  Each op
 * is appended to the calls log of the recording (struct replay_log, kept
 * with the struct cl_db): its fields as a mask of those that differ from
 * the previous op's and those differences as zigzag varints, strings as
 * indexes into a table of the distinct strings.  Every replay, the first
 * included, decodes the log, so the analyses' passes cost no SQLite. */
#include "model/replay.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cudalens/fnv.h"
#include "cudalens/format.h"
#include "cudalens/semantics.h"
#include "model/db.h"
#include "model/names.h"
#include "u64map.h"
#include "util.h"

/* the columns of calls the replay reads, and the tables merged into calls
 * with theirs, each selected in the order of tables.def.  READ(set, table,
 * column) is the result column of a column of the set (CL_RANK), and fails
 * to compile for a column not in it. */
#define COLS(t, c) CL_COLS(t, c)
#define READ(set, t, c)                                                        \
  ((int)(0 * sizeof(char[((set) >> CL_COL_##t##_##c & 1) ? 1 : -1])) +          \
   CL_RANK(set, t, c))
#define CALLS_READ                                                             \
  (COLS(calls, seq) | COLS(calls, api) | COLS(calls, tid) |                    \
   COLS(calls, start_ns) | COLS(calls, end_ns) | COLS(calls, result) |         \
   COLS(calls, device) | COLS(calls, stream) | COLS(calls, correlation) |      \
   COLS(calls, driver_correlation) | COLS(calls, stack) | COLS(calls, pystack))
#define TRANSFERS_READ                                                         \
  (COLS(transfers, seq) | COLS(transfers, op) | COLS(transfers, direction) |   \
   COLS(transfers, dst) | COLS(transfers, src) | COLS(transfers, bytes) |      \
   COLS(transfers, async) | COLS(transfers, src_device) |                      \
   COLS(transfers, dst_device))
#define MEMORY_READ                                                            \
  (COLS(memory, seq) | COLS(memory, address) | COLS(memory, size) |            \
   COLS(memory, stream) | COLS(memory, op) | COLS(memory, kind))
#define DEVICE_OPS_READ                                                        \
  (COLS(device_ops, seq) | COLS(device_ops, op) | COLS(device_ops, device) |   \
   COLS(device_ops, peer))
#define EVENTS_READ (COLS(events, seq) | COLS(events, handle))
#define EVENT_RECORDS_READ (COLS(event_records, seq) | COLS(event_records, event))
#define STREAM_WAITS_READ (COLS(stream_waits, seq) | COLS(stream_waits, event))
#define SYNCS_READ                                                             \
  (COLS(syncs, seq) | COLS(syncs, kind) | COLS(syncs, event) |                 \
   COLS(syncs, stream) | COLS(syncs, complete))
#define KERNELS_READ (COLS(kernels, seq) | COLS(kernels, name))
/* column C of calls, of transfers ... */
#define CALL(c) READ(CALLS_READ, calls, c)
#define TRANSFER(c) READ(TRANSFERS_READ, transfers, c)
#define MEMORY(c) READ(MEMORY_READ, memory, c)
#define DEVICE_OP(c) READ(DEVICE_OPS_READ, device_ops, c)
#define EVENT(c) READ(EVENTS_READ, events, c)
#define EVENT_RECORD(c) READ(EVENT_RECORDS_READ, event_records, c)
#define STREAM_WAIT(c) READ(STREAM_WAITS_READ, stream_waits, c)
#define SYNC(c) READ(SYNCS_READ, syncs, c)
#define KERNEL(c) READ(KERNELS_READ, kernels, c)

enum { S_TRANSFER, S_MEMORY, S_DEVOP, S_EVENT, S_RECORD, S_WAIT, S_SYNC,
       S_KERNEL, SIDES };
static const struct side {
  enum cl_table table;
  unsigned long long cols;
} sides[SIDES] = {
    [S_TRANSFER] = {CL_TABLE_transfers, TRANSFERS_READ},
    [S_MEMORY] = {CL_TABLE_memory, MEMORY_READ},
    [S_DEVOP] = {CL_TABLE_device_ops, DEVICE_OPS_READ},
    [S_EVENT] = {CL_TABLE_events, EVENTS_READ},
    [S_RECORD] = {CL_TABLE_event_records, EVENT_RECORDS_READ},
    [S_WAIT] = {CL_TABLE_stream_waits, STREAM_WAITS_READ},
    [S_SYNC] = {CL_TABLE_syncs, SYNCS_READ},
    [S_KERNEL] = {CL_TABLE_kernels, KERNELS_READ},
};

/* the api table, by id: its name and op (NULL: the column is NULL) */
struct replay_api {
  char *name, *op;
};

/* the kernels rows a second thread reads while this one reads calls
 * (reading.c), in chunks handed over as they fill: each row's seq and its
 * name as int_or() reads it, and a bit a row: the name is an integer */
struct kernel_row {
  int64_t seq, name;
};
enum { KERNEL_CHUNK = 4096 };
struct kernel_chunk {
  struct kernel_chunk *next;
  size_t n;
  struct kernel_row rows[KERNEL_CHUNK];
  uint64_t name_int[KERNEL_CHUNK / 64];
};
struct kernel_feed {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct kernel_chunk *head; /* the first chunk not yet taken */
  struct kernel_chunk **tail;
  bool done, failed; /* all rows handed over; the reading failed */
};

/* the SQLite side: calls and the tables merged into it */
struct reader {
  struct cl_db *db;
  sqlite3_stmt *st;         /* calls, in seq order */
  sqlite3_stmt *side[SIDES];
  bool side_row[SIDES];
  int64_t side_seq[SIDES];  /* the seq of each side's current row */
  int *op_of_api;           /* api.id -> enum cl_op, cached */
  int64_t napi;
  struct replay_api *apis;  /* the api table */
  size_t napis, cap_apis;
  struct u64map api_by_id;
  struct replay_op op;
  /* kernels' rows from another thread (replay_read_calls_fed), or NULL:
   * the chunk being read and the next row in it */
  struct kernel_feed *feed;
  struct kernel_chunk *kc;
  size_t ki;
  struct calls_facts facts;  /* so far */
  bool facts_exact;          /* every value they depend on an integer */
  struct u64map tids, task_devs; /* the distinct values seen */
  size_t cap_task_devices;
  /* the previous call's api id and its entry (-1: none), tid and task
   * device, which most calls repeat: no lookup for them */
  int64_t last_api, last_ai, last_tid, last_dev;
  bool has_last_tid, has_last_dev;
};

static void load_apis(struct reader *r)
{
  u64map_init(&r->api_by_id);
  sqlite3_stmt *st = db_prepare_table(r->db, CL_TABLE_api, CL_ALL_COLS, "");
  while (db_step(r->db, st)) {
    if (sqlite3_column_type(st, CL_COL_api_id) != SQLITE_INTEGER)
      continue; /* matches no calls.api */
    GROW(r->apis, r->cap_apis, r->napis + 1);
    struct replay_api *a = &r->apis[r->napis];
    a->name = db_null(st, CL_COL_api_name) ? NULL
                                           : xstrdup(db_text(st, CL_COL_api_name));
    a->op = db_null(st, CL_COL_api_op) ? NULL : xstrdup(db_text(st, CL_COL_api_op));
    u64map_put(&r->api_by_id, (uint64_t)db_int(st, CL_COL_api_id), r->napis++);
  }
  db_finalize(st);
}

/* the next row of side table I */
static void side_step(struct reader *r, int i)
{
  /* every side table's first column is seq, and read */
  _Static_assert(TRANSFER(seq) == 0 && MEMORY(seq) == 0 &&
                     DEVICE_OP(seq) == 0 && EVENT(seq) == 0 &&
                     EVENT_RECORD(seq) == 0 && STREAM_WAIT(seq) == 0 &&
                     SYNC(seq) == 0 && KERNEL(seq) == 0,
                 "seq first");
  if ((r->side_row[i] = db_step(r->db, r->side[i])))
    r->side_seq[i] = db_int(r->side[i], 0);
}

static void reader_begin(struct reader *r, struct cl_db *db,
                         struct kernel_feed *feed)
{
  memset(r, 0, sizeof *r);
  r->db = db;
  r->feed = feed;
  load_apis(r);
  u64map_init(&r->tids);
  u64map_init(&r->task_devs);
  r->facts_exact = true;
  r->facts.first_kernel = INT64_MAX;
  r->last_ai = -1;
  r->st = db_prepare_table(db, CL_TABLE_calls, CALLS_READ, "ORDER BY seq");
  for (int i = 0; i < SIDES; i++) {
    if (i == S_KERNEL && feed)
      continue; /* fed */
    r->side[i] = db_prepare_table(db, sides[i].table, sides[i].cols,
                                  "ORDER BY seq");
    side_step(r, i);
  }
}

/* side table I's row of call SEQ, or NULL (the rows of earlier calls
 * skipped) */
static sqlite3_stmt *side_row(struct reader *r, int i, int64_t seq)
{
  while (r->side_row[i] && r->side_seq[i] < seq)
    side_step(r, i);
  return r->side_row[i] && r->side_seq[i] == seq ? r->side[i] : NULL;
}

static int64_t int_or(sqlite3_stmt *st, int col, int64_t none);

/* the kernels row of call SEQ from the feed (the rows of earlier calls
 * skipped): true and its name, else false.  Where the feed failed, the
 * rest is read on this connection, as side_row() does. */
static bool fed_kernel(struct reader *r, int64_t seq, int64_t *name,
                       bool *name_int)
{
  for (;;) {
    while (r->kc && r->ki < r->kc->n && r->kc->rows[r->ki].seq < seq)
      r->ki++;
    if (r->kc && r->ki < r->kc->n) {
      const struct kernel_row *k = &r->kc->rows[r->ki];
      if (k->seq != seq)
        return false;
      *name = k->name;
      *name_int = r->kc->name_int[r->ki / 64] >> r->ki % 64 & 1;
      return true;
    }
    /* the next chunk */
    struct kernel_feed *f = r->feed;
    pthread_mutex_lock(&f->mu);
    while (!f->head && !f->done)
      pthread_cond_wait(&f->cv, &f->mu);
    struct kernel_chunk *c = f->head;
    if (c && !(f->head = c->next))
      f->tail = &f->head;
    bool failed = f->failed;
    pthread_mutex_unlock(&f->mu);
    free(r->kc);
    r->kc = c;
    r->ki = 0;
    if (c)
      continue;
    if (!failed)
      return false; /* no more rows */
    /* read the rest here */
    r->feed = NULL;
    r->side[S_KERNEL] = db_prepare_table(r->db, CL_TABLE_kernels, KERNELS_READ,
                                         "ORDER BY seq");
    side_step(r, S_KERNEL);
    sqlite3_stmt *k = side_row(r, S_KERNEL, seq);
    if (!k)
      return false;
    *name = int_or(k, KERNEL(name), -1);
    *name_int = sqlite3_column_type(k, KERNEL(name)) == SQLITE_INTEGER;
    return true;
  }
}

struct kernel_feed *kernel_feed_new(void)
{
  struct kernel_feed *f = xcalloc(1, sizeof *f);
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  f->tail = &f->head;
  return f;
}

/* chunk C (if any) handed over, and DONE (with FAILED) said */
static void feed_put(struct kernel_feed *f, struct kernel_chunk *c, bool done,
                     bool failed)
{
  pthread_mutex_lock(&f->mu);
  if (c) {
    *f->tail = c;
    f->tail = &c->next;
  }
  f->done = done;
  f->failed = failed;
  pthread_cond_signal(&f->cv);
  pthread_mutex_unlock(&f->mu);
}

void kernel_feed_read(struct kernel_feed *f, struct cl_db *db)
{
  sqlite3_stmt *st = db_prepare_table(db, CL_TABLE_kernels, KERNELS_READ,
                                      "ORDER BY seq");
  struct kernel_chunk *c = NULL;
  while (st && db_step(db, st)) {
    if (!c)
      c = xcalloc(1, sizeof *c);
    if (sqlite3_column_type(st, KERNEL(name)) == SQLITE_INTEGER)
      c->name_int[c->n / 64] |= 1ULL << c->n % 64;
    c->rows[c->n++] = (struct kernel_row){db_int(st, KERNEL(seq)),
                                          int_or(st, KERNEL(name), -1)};
    if (c->n == KERNEL_CHUNK) {
      feed_put(f, c, false, false);
      c = NULL;
    }
  }
  db_finalize(st);
  feed_put(f, c, true, db->failed || !st);
}

void kernel_feed_free(struct kernel_feed *f)
{
  if (!f)
    return;
  for (struct kernel_chunk *c = f->head, *n; c; c = n) {
    n = c->next;
    free(c);
  }
  pthread_mutex_destroy(&f->mu);
  pthread_cond_destroy(&f->cv);
  free(f);
}

/* enum cl_op of an api row's op name, cached by api id */
static int op_of(struct reader *r, int64_t api, const char *name)
{
  if (api >= 0 && api < r->napi && r->op_of_api[api] != -2)
    return r->op_of_api[api];
  int op = -1;
  for (int i = 0; i < CL_OP_COUNT && name; i++)
    if (!strcmp(cl_op_name((enum cl_op)i), name))
      op = i;
  if (api >= 0 && api < 1 << 20) {
    if (api >= r->napi) {
      int64_t n = api + 64;
      r->op_of_api = xrealloc(r->op_of_api, (size_t)n * sizeof *r->op_of_api);
      for (int64_t i = r->napi; i < n; i++)
        r->op_of_api[i] = -2;
      r->napi = n;
    }
    r->op_of_api[api] = op;
  }
  return op;
}

static int64_t int_or(sqlite3_stmt *st, int col, int64_t none)
{
  return db_null(st, col) ? none : db_int(st, col);
}

/* the value of column COL of the current row: read once with its type
 * (the connection is used by one thread; see sqlite3_column_value) */
#define COL(st, col) sqlite3_column_value((st), (col))
#define VNULL(v) (sqlite3_value_type(v) == SQLITE_NULL)
#define VINT(v) sqlite3_value_int64(v)
#define VTEXT(v) ((const char *)sqlite3_value_text(v))

static int64_t vint_or(sqlite3_value *v, int64_t none)
{
  return VNULL(v) ? none : VINT(v);
}

/* integer or NULL: what the facts take as SQL would */
static bool int_or_null(int type)
{
  return type == SQLITE_INTEGER || type == SQLITE_NULL;
}

/* calls row V (columns CALL(column)) into the facts */
static void add_facts(struct reader *r, sqlite3_value **v, int op)
{
  struct calls_facts *f = &r->facts;
  int tseq = sqlite3_value_type(v[CALL(seq)]), tapi = sqlite3_value_type(v[CALL(api)]);
  int ttid = sqlite3_value_type(v[CALL(tid)]);
  int tstart = sqlite3_value_type(v[CALL(start_ns)]);
  int tend = sqlite3_value_type(v[CALL(end_ns)]);
  int tdev = sqlite3_value_type(v[CALL(device)]);
  int tres = sqlite3_value_type(v[CALL(result)]);
  if (tseq != SQLITE_INTEGER || !int_or_null(tapi) || !int_or_null(ttid) ||
      !int_or_null(tstart) || !int_or_null(tend) || !int_or_null(tdev) ||
      !int_or_null(tres)) {
    r->facts_exact = false;
    return;
  }
  f->calls++;
  if (ttid == SQLITE_INTEGER &&
      !(r->has_last_tid && r->last_tid == VINT(v[CALL(tid)]))) {
    r->last_tid = VINT(v[CALL(tid)]);
    r->has_last_tid = true;
    if (!u64map_get(&r->tids, (uint64_t)r->last_tid, NULL)) {
      u64map_put(&r->tids, (uint64_t)r->last_tid, 0);
      f->threads++;
    }
  }
  if (tstart == SQLITE_INTEGER) {
    int64_t x = VINT(v[CALL(start_ns)]);
    if (!f->has_start || x < f->min_start)
      f->min_start = x;
    f->has_start = true;
  }
  if (tend == SQLITE_INTEGER) {
    int64_t x = VINT(v[CALL(end_ns)]);
    if (!f->has_end || x > f->max_end)
      f->max_end = x;
    f->has_end = true;
  }
  if (op < 0 || tres != SQLITE_INTEGER || VINT(v[CALL(result)]) != 0)
    return; /* the rest is of successful calls of a known operation */
  int64_t seq = VINT(v[CALL(seq)]);
  if ((op == CL_OP_KERNEL || op == CL_OP_GRAPH_LAUNCH) && seq < f->first_kernel)
    f->first_kernel = seq;
  if (tdev == SQLITE_INTEGER &&
      !(r->has_last_dev && r->last_dev == VINT(v[CALL(device)])) &&
      cl_op_is_stream_task((enum cl_op)op)) {
    r->last_dev = VINT(v[CALL(device)]);
    r->has_last_dev = true;
    if (!u64map_get(&r->task_devs, (uint64_t)r->last_dev, NULL)) {
      u64map_put(&r->task_devs, (uint64_t)r->last_dev, 0);
      GROW(f->task_devices, r->cap_task_devices, f->ntask_devices + 1);
      f->task_devices[f->ntask_devices++] = r->last_dev;
    }
  }
}

static bool reader_next(struct reader *r)
{
  sqlite3_stmt *st = r->st;
  if (!st || !db_step(r->db, st))
    return false;
  sqlite3_value *c[CL_NCOLS_calls];
  for (int i = 0; i < __builtin_popcountll(CALLS_READ); i++)
    c[i] = COL(st, i);
  struct replay_op *o = &r->op;
  memset(o, 0, sizeof *o);
  o->seq = VINT(c[CALL(seq)]);
  const struct replay_api *api = NULL;
  if (sqlite3_value_type(c[CALL(api)]) == SQLITE_INTEGER) {
    int64_t id = VINT(c[CALL(api)]);
    uint64_t ai;
    if (id != r->last_api || r->last_ai < 0) {
      r->last_api = id;
      r->last_ai = u64map_get(&r->api_by_id, (uint64_t)id, &ai) ? (int64_t)ai : -1;
    }
    if (r->last_ai >= 0)
      api = &r->apis[r->last_ai];
  }
  o->op = !api || !api->op ? -1 : op_of(r, VINT(c[CALL(api)]), api->op);
  o->api = api ? api->name : NULL;
  if (r->facts_exact)
    add_facts(r, c, o->op);
  o->tid = VINT(c[CALL(tid)]);
  o->start_ns = VINT(c[CALL(start_ns)]);
  o->end_ns = VINT(c[CALL(end_ns)]);
  o->device = vint_or(c[CALL(device)], -1);
  o->has_stream = !VNULL(c[CALL(stream)]);
  o->stream = VINT(c[CALL(stream)]);
  o->result = VINT(c[CALL(result)]);
  o->stack = vint_or(c[CALL(stack)], -1);
  o->pystack = vint_or(c[CALL(pystack)], -1);
  o->corr = vint_or(c[CALL(correlation)], -1);
  o->dcorr = vint_or(c[CALL(driver_correlation)], -1);

  sqlite3_stmt *t = side_row(r, S_TRANSFER, o->seq);
  if ((o->transfer = t && !db_null(t, TRANSFER(op)))) {
    const char *top = db_text(t, TRANSFER(op));
    o->is_memset = top && !strcmp(top, "memset");
    o->async = db_int(t, TRANSFER(async)) != 0;
    o->dir_recorded = parse_dir(db_text(t, TRANSFER(direction)));
    o->dst = (uint64_t)db_int(t, TRANSFER(dst));
    o->src = (uint64_t)db_int(t, TRANSFER(src));
    o->bytes = int_or(t, TRANSFER(bytes), -1);
    o->src_device = int_or(t, TRANSFER(src_device), -1);
    o->dst_device = int_or(t, TRANSFER(dst_device), -1);
  }
  sqlite3_stmt *m = side_row(r, S_MEMORY, o->seq);
  if ((o->mem = m != NULL)) {
    o->mem_addr = (uint64_t)db_int(m, MEMORY(address));
    o->mem_size = int_or(m, MEMORY(size), -1);
    o->mem_has_stream = !db_null(m, MEMORY(stream));
    o->mem_stream = db_int(m, MEMORY(stream));
    const char *mop = db_text(m, MEMORY(op));
    o->mem_free = mop && !strcmp(mop, "free");
    o->mem_kind = db_null(m, MEMORY(kind)) ? -1 : parse_memkind(db_text(m, MEMORY(kind)));
    if (db_null(m, MEMORY(address)))
      o->mem = false; /* a row without an address describes nothing */
  }
  sqlite3_stmt *d = side_row(r, S_DEVOP, o->seq);
  if (d && (o->dev_op = db_text(d, DEVICE_OP(op)))) {
    o->dev_op_device = int_or(d, DEVICE_OP(device), -1);
    if ((o->has_peer = !db_null(d, DEVICE_OP(peer))))
      o->peer = db_int(d, DEVICE_OP(peer));
  }
  sqlite3_stmt *e = side_row(r, S_EVENT, o->seq);
  if ((o->has_event = e && !db_null(e, EVENT(handle))))
    o->event = (uint64_t)db_int(e, EVENT(handle));
  e = side_row(r, S_RECORD, o->seq);
  if ((o->has_record = e && !db_null(e, EVENT_RECORD(event))))
    o->record_event = (uint64_t)db_int(e, EVENT_RECORD(event));
  e = side_row(r, S_WAIT, o->seq);
  if ((o->has_wait = e && !db_null(e, STREAM_WAIT(event))))
    o->wait_event = (uint64_t)db_int(e, STREAM_WAIT(event));
  o->sync_op = -1;
  sqlite3_stmt *y = side_row(r, S_SYNC, o->seq);
  if (y && (o->sync_kind = db_text(y, SYNC(kind)))) {
    o->sync_op = cl_sync_kind_op(o->sync_kind);
    if ((o->has_sync_event = !db_null(y, SYNC(event))))
      o->sync_event = (uint64_t)db_int(y, SYNC(event));
    if ((o->has_sync_stream = !db_null(y, SYNC(stream))))
      o->sync_stream = db_int(y, SYNC(stream));
    o->complete = db_int(y, SYNC(complete)) != 0;
  }
  int64_t kname = -1;
  bool kint = false;
  if (r->feed) {
    fed_kernel(r, o->seq, &kname, &kint);
  } else {
    sqlite3_stmt *k = side_row(r, S_KERNEL, o->seq);
    if (k) {
      kname = int_or(k, KERNEL(name), -1);
      kint = sqlite3_column_type(k, KERNEL(name)) == SQLITE_INTEGER;
    }
  }
  o->kname = kname;
  if (kint)
    o->kmangled = names_string(r->db, kname);
  return true;
}

static void reader_end(struct reader *r)
{
  db_finalize(r->st);
  for (int i = 0; i < SIDES; i++)
    db_finalize(r->side[i]);
  for (size_t i = 0; i < r->napis; i++) {
    free(r->apis[i].name);
    free(r->apis[i].op);
  }
  free(r->apis);
  u64map_free(&r->api_by_id);
  free(r->op_of_api);
  u64map_free(&r->tids);
  u64map_free(&r->task_devs);
  free(r->facts.task_devices);
  free(r->kc);
  memset(r, 0, sizeof *r);
}

/* ---- the calls log ------------------------------------------------------- */
/* a growing buffer of varints */
struct bytes {
  unsigned char *buf;
  size_t n, cap;
};

/* the words of the launches' arguments, in their order (seq, param,
 * offset), from launch_args (schema 6) or kernel_args (up to 5) alike: each
 * word's seq, param, offset and value as zigzag varints of the difference
 * from the previous word's, then 1 if its parameter was not fully
 * initialized (a launch_args flag, or in uninit_params), else 0 */
struct replay_args {
  struct bytes b;
  size_t nuninit; /* rows whose parameter is in uninit_params */
};

struct replay_log {
  struct bytes ops;
  struct replay_args *args; /* merged with the ops as they are decoded */
  char **strs;              /* the distinct strings of the ops */
  size_t nstrs, capstrs;
  struct u64map str_by_hash; /* hash -> first index; collisions chained */
  size_t *str_next;         /* the next index with the same hash, or SIZE_MAX */
  struct calls_facts facts;
  bool facts_exact;
  /* intern_stable's: strings at addresses that hold them while the log is
   * built (the reader's api names, names.c's kernel names) and their indexes */
  const char *stable_ptr[256];
  int64_t stable_idx[256];
};

static uint64_t hash_str(const char *s)
{
  return cl_fnv1a_str(CL_FNV_OFFSET, s);
}

/* the index of string S in the log's table (-1: NULL) */
static int64_t intern(struct replay_log *l, const char *s)
{
  if (!s)
    return -1;
  uint64_t h = hash_str(s), i;
  size_t last = SIZE_MAX;
  if (u64map_get(&l->str_by_hash, h, &i))
    for (size_t j = (size_t)i; j != SIZE_MAX; j = l->str_next[j]) {
      if (!strcmp(l->strs[j], s))
        return (int64_t)j;
      last = j;
    }
  if (l->nstrs == l->capstrs) {
    l->capstrs = l->capstrs ? l->capstrs * 2 : 64;
    l->strs = xrealloc(l->strs, l->capstrs * sizeof *l->strs);
    l->str_next = xrealloc(l->str_next, l->capstrs * sizeof *l->str_next);
  }
  size_t k = l->nstrs++;
  l->strs[k] = xstrdup(s);
  l->str_next[k] = SIZE_MAX;
  if (last == SIZE_MAX)
    u64map_put(&l->str_by_hash, h, k);
  else
    l->str_next[last] = k;
  return (int64_t)k;
}

/* intern() of a string whose address holds it, and only it, while the
 * log is built: looked up by its address first */
static int64_t intern_stable(struct replay_log *l, const char *s)
{
  if (!s)
    return -1;
  size_t k = ((uintptr_t)s >> 4) % (sizeof l->stable_ptr / sizeof *l->stable_ptr);
  if (l->stable_ptr[k] != s) {
    l->stable_ptr[k] = s;
    l->stable_idx[k] = intern(l, s);
  }
  return l->stable_idx[k];
}

static const char *str_at(const struct replay_log *l, int64_t i)
{
  return i >= 0 && (size_t)i < l->nstrs ? l->strs[i] : NULL;
}

/* the fields of a struct replay_op (REPLAY_FIELDS), numbered in the order
 * of the log's mask bits */
enum {
#define LOG_ENUM(kind, f) F_##f,
  REPLAY_FIELDS(LOG_ENUM)
#undef LOG_ENUM
  NFIELDS
};

/* a field's value as the log keeps it, and back */
#define TO_I64(l, x) (x)
#define TO_U64(l, x) (int64_t)(x)
#define TO_INT(l, x) (x)
#define TO_BOOL(l, x) (x)
#define TO_STR(l, x) intern(l, x)
#define TO_NAME(l, x) intern_stable(l, x)
#define FROM_I64(l, x) (x)
#define FROM_U64(l, x) (uint64_t)(x)
#define FROM_INT(l, x) (int)(x)
#define FROM_BOOL(l, x) ((x) != 0)
#define FROM_STR(l, x) str_at(l, x)
#define FROM_NAME(l, x) str_at(l, x)

static void op_to_fields(struct replay_log *l, const struct replay_op *o,
                         int64_t *v)
{
#define LOG_TO(kind, f) v[F_##f] = TO_##kind(l, o->f);
  REPLAY_FIELDS(LOG_TO)
#undef LOG_TO
}

/* field F of O from its value X (inlined: replay_next calls it for every
 * changed field of every op, in every pass) */
static inline __attribute__((always_inline)) void set_field(const struct replay_log *l, struct replay_op *o, int f,
                      int64_t x)
{
  switch (f) {
#define LOG_FROM(kind, f)                                                      \
  case F_##f:                                                                  \
    o->f = FROM_##kind(l, x);                                                  \
    break;
    REPLAY_FIELDS(LOG_FROM)
#undef LOG_FROM
  }
}

/* every field of O from the values V */
static void fields_to_op(const struct replay_log *l, const int64_t *v,
                         struct replay_op *o)
{
  for (int f = 0; f < NFIELDS; f++)
    set_field(l, o, f, v[f]);
}

static inline __attribute__((always_inline)) void put_varint(struct bytes *b,
                                                          uint64_t x)
{
  if (b->cap - b->n < 10) {
    b->cap = b->cap ? b->cap * 2 : 1 << 16;
    b->buf = xrealloc(b->buf, b->cap);
  }
  while (x >= 0x80) {
    b->buf[b->n++] = (unsigned char)(x | 0x80);
    x >>= 7;
  }
  b->buf[b->n++] = (unsigned char)x;
}

static inline __attribute__((always_inline)) uint64_t
get_varint(const unsigned char **p)
{
  const unsigned char *q = *p;
  if (*q < 0x80) { /* most deltas fit in a byte */
    *p = q + 1;
    return *q;
  }
  uint64_t x = 0;
  for (unsigned shift = 0;; shift += 7) {
    unsigned char b = *q++;
    x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      break;
  }
  *p = q;
  return x;
}

/* the difference NOW - PREV as a zigzag varint (wrapping) */
static uint64_t zigzag(int64_t now, int64_t prev)
{
  uint64_t d = (uint64_t)now - (uint64_t)prev;
  return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

static int64_t unzigzag(uint64_t z, int64_t prev)
{
  uint64_t d = (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
  return (int64_t)((uint64_t)prev + d);
}

/* the delta state of an encoder or decoder */
struct log_state {
  int64_t prev[NFIELDS];
  /* the decoder's current kernel_args row (arg_seq, arg) if arg_valid, and
   * where the next one starts */
  bool arg_valid;
  int64_t arg_seq;
  struct replay_arg arg;
  size_t args_pos;
};

static void log_append(struct replay_log *l, struct log_state *s,
                       const struct replay_op *o)
{
  int64_t v[NFIELDS];
  op_to_fields(l, o, v);
  /* the changed fields' deltas, gathered in one pass, after their mask */
  uint64_t mask = 0, d[NFIELDS];
  int n = 0;
  for (int f = 0; f < NFIELDS; f++)
    if (v[f] != s->prev[f]) {
      mask |= 1ULL << f;
      d[n++] = zigzag(v[f], s->prev[f]);
      s->prev[f] = v[f];
    }
  put_varint(&l->ops, mask);
  for (int i = 0; i < n; i++)
    put_varint(&l->ops, d[i]);
}

/* one word of a launch's arguments into A (PREV: the previous word's seq,
 * param, offset, value), as both tables give them */
static void args_put(struct replay_args *a, int64_t prev[4], const int64_t w[4],
                     bool uninit)
{
  for (int i = 0; i < 4; i++) {
    put_varint(&a->b, zigzag(w[i], prev[i]));
    prev[i] = w[i];
  }
  put_varint(&a->b, uninit);
  a->nuninit += uninit;
}

/* a word of a launch_args blob, its place in the blob for ties */
struct blob_word {
  uint32_t key; /* param << 16 | offset */
  uint32_t at;
  uint64_t value;
  bool uninit;
};

static int blob_word_cmp(const void *x, const void *y)
{
  const struct blob_word *a = x, *b = y;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return a->at < b->at ? -1 : a->at > b->at;
}

/* schema 6: each launch's blob, its words in (param, offset) order, each
 * (param, offset) once, the first in the blob (what kernel_args' primary key
 * kept); the recorder writes them so, the sort is for other writers */
static void args_read_blobs(struct cl_db *db, struct replay_args *a)
{
  sqlite3_stmt *st = db_prepare_table(db, CL_TABLE_launch_args, CL_ALL_COLS,
                                     "ORDER BY seq");
  int64_t prev[4] = {0, 0, 0, 0};
  struct blob_word *words = NULL;
  size_t cap = 0;
  while (st && db_step(db, st)) {
    int64_t seq = VINT(COL(st, CL_COL_launch_args_seq));
    const unsigned char *p = sqlite3_column_blob(st, CL_COL_launch_args_args);
    size_t n = (size_t)sqlite3_column_bytes(st, CL_COL_launch_args_args) /
               CL_LAUNCH_ARG_SIZE;
    GROW(words, cap, n);
    bool sorted = true;
    for (size_t i = 0; i < n; i++) {
      unsigned param, offset, flags;
      unsigned long long value;
      cl_launch_arg_get(p + i * CL_LAUNCH_ARG_SIZE, &param, &offset, &flags,
                        &value);
      words[i] = (struct blob_word){param << 16 | offset, (uint32_t)i, value,
                                    (flags & CL_LAUNCH_ARG_UNINIT) != 0};
      sorted = sorted && (i == 0 || words[i - 1].key < words[i].key);
    }
    if (!sorted)
      qsort(words, n, sizeof *words, blob_word_cmp);
    for (size_t i = 0; i < n; i++) {
      if (i > 0 && words[i - 1].key == words[i].key)
        continue;
      int64_t w[4] = {seq, words[i].key >> 16, words[i].key & 0xffff,
                      (int64_t)words[i].value};
      args_put(a, prev, w, words[i].uninit);
    }
  }
  free(words);
  db_finalize(st);
}

/* up to schema 5: a row a word (kernel_args), the parameters that may hold
 * stale words apart (uninit_params, since 5) */
static void args_read_rows(struct cl_db *db, struct replay_args *a)
{
  sqlite3_stmt *st = db_prepare_table(db, CL_TABLE_kernel_args, CL_ALL_COLS,
                                     "ORDER BY seq, param, offset");
  /* the columns args_put takes, in its order */
  static const int cols[] = {CL_COL_kernel_args_seq, CL_COL_kernel_args_param,
                             CL_COL_kernel_args_offset,
                             CL_COL_kernel_args_value};
  /* the parameters that may hold stale words (schema 5), by seq * 64 +
   * param (the recorder marks parameters 0 to 63) */
  struct u64map uninit;
  u64map_init(&uninit);
  if (db_has_table(db, "uninit_params")) {
    sqlite3_stmt *u = db_prepare_table(db, CL_TABLE_uninit_params, CL_ALL_COLS, "");
    while (u && db_step(db, u)) {
      int64_t seq = VINT(COL(u, CL_COL_uninit_params_seq));
      int64_t param = VINT(COL(u, CL_COL_uninit_params_param));
      if (param >= 0 && param < 64)
        u64map_put(&uninit, (uint64_t)seq * 64 + (uint64_t)param, 1);
    }
    db_finalize(u);
  }
  int64_t prev[4] = {0, 0, 0, 0};
  while (st && db_step(db, st)) {
    int64_t w[4];
    for (int i = 0; i < 4; i++)
      w[i] = VINT(COL(st, cols[i]));
    uint64_t flag;
    bool u = w[1] >= 0 && w[1] < 64 &&
             u64map_get(&uninit, (uint64_t)w[0] * 64 + (uint64_t)w[1], &flag);
    args_put(a, prev, w, u);
  }
  db_finalize(st);
  u64map_free(&uninit);
}

struct replay_args *replay_args_read(struct cl_db *db)
{
  struct replay_args *a = xcalloc(1, sizeof *a);
  if (db->version >= cl_table_until(CL_TABLE_kernel_args))
    args_read_blobs(db, a);
  else
    args_read_rows(db, a);
  return a;
}

void replay_args_free(struct replay_args *a)
{
  if (a)
    free(a->b.buf);
  free(a);
}

/* the calls log of DB, its kernel_args not yet read */
static struct replay_log *log_build(struct cl_db *db, struct kernel_feed *feed)
{
  struct replay_log *l = xcalloc(1, sizeof *l);
  u64map_init(&l->str_by_hash);
  struct log_state s;
  memset(&s, 0, sizeof s);
  struct reader r;
  reader_begin(&r, db, feed);
  while (reader_next(&r))
    log_append(l, &s, &r.op);
  l->facts = r.facts;
  l->facts_exact = r.facts_exact;
  r.facts.task_devices = NULL; /* the log's now */
  reader_end(&r);
  return l;
}

void replay_read_calls(struct cl_db *db)
{
  if (!db->calls_log)
    db->calls_log = log_build(db, NULL);
}

void replay_read_calls_fed(struct cl_db *db, struct kernel_feed *feed)
{
  if (!db->calls_log)
    db->calls_log = log_build(db, feed);
}

void replay_set_args(struct cl_db *db, struct replay_args *args)
{
  replay_read_calls(db);
  replay_args_free(db->calls_log->args);
  db->calls_log->args = args ? args : replay_args_read(db);
}

void replay_log_free(struct replay_log *l)
{
  if (!l)
    return;
  free(l->ops.buf);
  replay_args_free(l->args);
  for (size_t i = 0; i < l->nstrs; i++)
    free(l->strs[i]);
  free(l->strs);
  free(l->str_next);
  u64map_free(&l->str_by_hash);
  free(l->facts.task_devices);
  free(l);
}

bool replay_has_uninit(struct cl_db *db)
{
  replay_read_calls(db);
  if (!db->calls_log->args)
    replay_set_args(db, NULL);
  return db->calls_log->args->nuninit > 0;
}

const struct calls_facts *replay_calls_facts(struct cl_db *db)
{
  replay_read_calls(db);
  return db->calls_log->facts_exact ? &db->calls_log->facts : NULL;
}

/* the next kernel_args row into S (arg_valid false at the end) */
static void next_arg(const struct replay_log *l, struct log_state *s)
{
  const struct bytes *b = l->args ? &l->args->b : NULL;
  if (!(s->arg_valid = b && s->args_pos < b->n))
    return;
  const unsigned char *p = b->buf + s->args_pos;
  s->arg_seq = unzigzag(get_varint(&p), s->arg_seq);
  s->arg.param = unzigzag(get_varint(&p), s->arg.param);
  s->arg.offset = unzigzag(get_varint(&p), s->arg.offset);
  s->arg.value = (uint64_t)unzigzag(get_varint(&p), (int64_t)s->arg.value);
  s->arg.uninit = get_varint(&p) != 0;
  s->args_pos = (size_t)(p - b->buf);
}

/* ---- replaying ------------------------------------------------------------ */
void replay_begin(struct replay *r, struct cl_db *db,
                  const struct activity *act)
{
  memset(r, 0, sizeof *r);
  r->db = db;
  r->act = act;
  replay_read_calls(db);
  if (!db->calls_log->args)
    replay_set_args(db, NULL);
  r->log = db->calls_log;
  struct log_state *s = xcalloc(1, sizeof *s);
  r->state = s;
  next_arg(r->log, s);
  fields_to_op(r->log, s->prev, &r->op);
  memmodel_load(&r->mm, db);
}

bool replay_next(struct replay *r)
{
  const struct replay_log *l = r->log;
  if (!l || r->pos >= l->ops.n)
    return false;
  struct log_state *s = r->state;
  const unsigned char *p = l->ops.buf + r->pos;
  /* the op keeps the fields that did not change since the previous one
   * (replay_begin set them all) */
  struct replay_op *o = &r->op;
  for (uint64_t mask = get_varint(&p); mask; mask &= mask - 1) {
    int f = __builtin_ctzll(mask);
    s->prev[f] = unzigzag(get_varint(&p), s->prev[f]);
    set_field(l, o, f, s->prev[f]);
  }
  r->pos = (size_t)(p - l->ops.buf);
  o->args = NULL;
  o->nargs = 0;
  if (o->op == CL_OP_KERNEL && !r->no_args) {
    /* its kernel_args rows (those of earlier calls skipped), as a merge
     * by seq of the two scans gives */
    while (s->arg_valid && s->arg_seq < o->seq)
      next_arg(l, s);
    for (; s->arg_valid && s->arg_seq == o->seq; next_arg(l, s)) {
      GROW(r->args, r->cap_args, o->nargs + 1);
      r->args[o->nargs++] = s->arg;
    }
    o->args = r->args;
  }
  memmodel_advance(&r->mm, sat_sub(o->seq, 1));
  return true;
}

void replay_end(struct replay *r)
{
  memmodel_free(&r->mm);
  free(r->state);
  free(r->args);
  memset(r, 0, sizeof *r);
}

void replay_activity(struct replay *r, struct call_act *ca)
{
  activity_for_call_near(r->act, r->op.corr, r->op.dcorr, ca, &r->act_hint);
}

int replay_copy_direction(const struct replay *r, const struct call_act *ca)
{
  return copy_direction(r->op.dir_recorded, ca, &r->mm, r->op.src, r->op.dst);
}

const struct cl_copy_rule *replay_copy_rule(const struct replay *r,
                                            const struct call_act *ca)
{
  const struct replay_op *o = &r->op;
  int dir = o->is_memset ? CL_DIR_UNKNOWN : replay_copy_direction(r, ca);
  int kind = o->is_memset
                 ? memmodel_host_kind(&r->mm, -1, o->dst)
                 : memmodel_copy_host_kind(&r->mm, dir, ca, o->src, o->dst);
  if (kind == CL_MEMKIND_COUNT)
    kind = CL_MEMKIND_DEVICE; /* no host side */
  return cl_copy_rule(o->is_memset, o->async, dir, kind);
}

const char *api_display(char *buf, size_t len, const char *name)
{
  if (!name)
    name = "?";
  snprintf(buf, len, "%s", name);
  char *v = strrchr(buf, '_');
  if (v && v[1] == 'v' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2))
    *v = 0;
  return buf;
}

/* replay.c - the one seq-ordered reading of a recording's calls (see
 * replay.h): one join over calls and the tables that describe them, each
 * row turned into a struct replay_op. */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

#include "cudalens/format.h"
#include "db.h"
#include "util.h"

enum {
  C_SEQ, C_APIID, C_OP, C_API, C_TID, C_START, C_END, C_DEVICE, C_STREAM, C_RESULT, C_STACK,
  C_PYSTACK, C_CORR, C_DCORR,
  T_OP, T_DIR, T_DST, T_SRC, T_BYTES, T_ASYNC, T_SRCDEV, T_DSTDEV,
  M_ADDR, M_SIZE, M_STREAM, M_SEQ, M_OP, M_KIND, D_OP, D_DEVICE, D_PEER,
  EV_HANDLE, ER_EVENT, SW_EVENT,
  SY_KIND, SY_EVENT, SY_STREAM, SY_COMPLETE,
  K_NAME, K_MANGLED
};

static const char SQL[] =
    "SELECT c.seq, c.api, a.op, a.name, c.tid, c.start_ns, c.end_ns, c.device, c.stream, c.result,"
    " c.stack, c.pystack, c.correlation, c.driver_correlation,"
    " t.op, t.direction, t.dst, t.src, t.bytes, t.async, t.src_device,"
    " t.dst_device,"
    " m.address, m.size, m.stream, m.seq, m.op, m.kind, o.op, o.device, o.peer,"
    " ev.handle, er.event, sw.event,"
    " y.kind, y.event, y.stream, y.complete,"
    " k.name, s.value"
    " FROM calls c LEFT JOIN api a ON a.id = c.api"
    " LEFT JOIN transfers t ON t.seq = c.seq"
    " LEFT JOIN memory m ON m.seq = c.seq"
    " LEFT JOIN device_ops o ON o.seq = c.seq"
    " LEFT JOIN events ev ON ev.seq = c.seq"
    " LEFT JOIN event_records er ON er.seq = c.seq"
    " LEFT JOIN stream_waits sw ON sw.seq = c.seq"
    " LEFT JOIN syncs y ON y.seq = c.seq"
    " LEFT JOIN kernels k ON k.seq = c.seq"
    " LEFT JOIN strings s ON s.id = k.name"
    " ORDER BY c.seq";

void replay_begin(struct replay *r, struct report_ctx *ctx)
{
  memset(r, 0, sizeof *r);
  r->db = ctx->db;
  r->act = ctx->act;
  memmodel_load(&r->mm, ctx->db);
  r->st = db_prepare(ctx->db, SQL);
  r->args_st = db_prepare(ctx->db, "SELECT seq, param, offset, value"
                                   " FROM kernel_args ORDER BY seq, param, offset");
  r->args_row = db_step(ctx->db, r->args_st);
}

/* the kernel_args rows of call SEQ (the rows of earlier calls skipped) */
static void load_args(struct replay *r, int64_t seq)
{
  sqlite3_stmt *a = r->args_st;
  struct replay_op *o = &r->op;
  while (r->args_row && db_int(a, 0) < seq)
    r->args_row = db_step(r->db, a);
  for (; r->args_row && db_int(a, 0) == seq; r->args_row = db_step(r->db, a)) {
    GROW(r->args, r->cap_args, o->nargs + 1);
    r->args[o->nargs++] = (struct replay_arg){db_int(a, 1), db_int(a, 2),
                                              (uint64_t)db_int(a, 3)};
  }
  o->args = r->args;
}

/* enum cl_op of an api row's op name, cached by api id */
static int op_of(struct replay *r, int64_t api, const char *name)
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

bool replay_next(struct replay *r)
{
  sqlite3_stmt *st = r->st;
  if (!st || !db_step(r->db, st))
    return false;
  struct replay_op *o = &r->op;
  memset(o, 0, sizeof *o);
  o->seq = db_int(st, C_SEQ);
  o->op = db_null(st, C_OP) ? -1 : op_of(r, db_int(st, C_APIID), db_text(st, C_OP));
  o->api = db_text(st, C_API);
  o->tid = db_int(st, C_TID);
  o->start_ns = db_int(st, C_START);
  o->end_ns = db_int(st, C_END);
  o->device = int_or(st, C_DEVICE, -1);
  o->has_stream = !db_null(st, C_STREAM);
  o->stream = db_int(st, C_STREAM);
  o->result = db_int(st, C_RESULT);
  o->stack = int_or(st, C_STACK, -1);
  o->pystack = int_or(st, C_PYSTACK, -1);
  o->corr = int_or(st, C_CORR, -1);
  o->dcorr = int_or(st, C_DCORR, -1);

  if ((o->transfer = !db_null(st, T_OP))) {
    const char *top = db_text(st, T_OP);
    o->is_memset = top && !strcmp(top, "memset");
    o->async = db_int(st, T_ASYNC) != 0;
    o->dir_recorded = parse_dir(db_text(st, T_DIR));
    o->dst = (uint64_t)db_int(st, T_DST);
    o->src = (uint64_t)db_int(st, T_SRC);
    o->bytes = int_or(st, T_BYTES, -1);
    o->src_device = int_or(st, T_SRCDEV, -1);
    o->dst_device = int_or(st, T_DSTDEV, -1);
  }
  if ((o->mem = !db_null(st, M_SEQ))) {
    o->mem_addr = (uint64_t)db_int(st, M_ADDR);
    o->mem_size = int_or(st, M_SIZE, -1);
    o->mem_has_stream = !db_null(st, M_STREAM);
    o->mem_stream = db_int(st, M_STREAM);
    const char *mop = db_text(st, M_OP);
    o->mem_free = mop && !strcmp(mop, "free");
    o->mem_kind = db_null(st, M_KIND) ? -1 : parse_memkind(db_text(st, M_KIND));
    if (db_null(st, M_ADDR))
      o->mem = false; /* a row without an address describes nothing */
  }
  if ((o->dev_op = db_text(st, D_OP))) {
    o->dev_op_device = int_or(st, D_DEVICE, -1);
    if ((o->has_peer = !db_null(st, D_PEER)))
      o->peer = db_int(st, D_PEER);
  }
  if ((o->has_event = !db_null(st, EV_HANDLE)))
    o->event = (uint64_t)db_int(st, EV_HANDLE);
  if ((o->has_record = !db_null(st, ER_EVENT)))
    o->record_event = (uint64_t)db_int(st, ER_EVENT);
  if ((o->has_wait = !db_null(st, SW_EVENT)))
    o->wait_event = (uint64_t)db_int(st, SW_EVENT);
  o->sync_op = -1;
  if ((o->sync_kind = db_text(st, SY_KIND))) {
    o->sync_op = cl_sync_kind_op(o->sync_kind);
    if ((o->has_sync_event = !db_null(st, SY_EVENT)))
      o->sync_event = (uint64_t)db_int(st, SY_EVENT);
    if ((o->has_sync_stream = !db_null(st, SY_STREAM)))
      o->sync_stream = db_int(st, SY_STREAM);
    o->complete = db_int(st, SY_COMPLETE) != 0;
  }
  o->kname = int_or(st, K_NAME, -1);
  o->kmangled = db_text(st, K_MANGLED);
  if (o->op == CL_OP_KERNEL)
    load_args(r, o->seq);
  memmodel_advance(&r->mm, sat_sub(o->seq, 1));
  return true;
}

void replay_end(struct replay *r)
{
  db_finalize(r->st);
  db_finalize(r->args_st);
  memmodel_free(&r->mm);
  free(r->op_of_api);
  free(r->args);
  memset(r, 0, sizeof *r);
}

void replay_activity(const struct replay *r, struct call_act *ca)
{
  activity_for_call(r->act, r->op.corr, r->op.dcorr, ca);
}

int replay_copy_direction(const struct replay *r, const struct call_act *ca)
{
  return copy_direction(r->op.dir_recorded, ca, &r->mm, r->op.src, r->op.dst);
}

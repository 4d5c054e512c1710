/* timeline.c - the timeline of timeline.h, from one replay of the calls
 * plus the host_accesses table.  Stream work sits at its GPU activity
 * times (the host time of its call when no activity was recorded); an
 * event record at the point its stream reaches it (the later of its call
 * and the end of the work before it on the stream), a stream wait at the
 * later of its call, the end of the work before it and the record it waits
 * for; a host access, which carries no time, at the end of the call
 * before it in the recording's order. */
#include "model/timeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cudalens/format.h"
#include "cudalens/semantics.h"
#include "model/names.h"
#include "model/replay.h"
#include "model/summary.h"
#include "sites/callsite.h"
#include "u64map.h"
#include "util.h"

const char *const tl_kind_names[TL_KIND_COUNT] = {
    "kernel", "copy", "memset", "record", "wait", "call", "sync", "access"};

struct build {
  struct timeline *tl;
  struct cl_db *db;
  const struct activity *act;
  struct summary *sum;  /* its streams may grow (streams_lookup) */
  struct callsites *cs;
  size_t cap_lanes, cap_ops, cap_flows;
  struct u64map lane_of;    /* stream index, or tid | 1 << 63 -> lane */
  int64_t *lane_end;        /* per lane: the end of its latest op */
  size_t cap_lane_end;
  struct u64map last_record; /* event handle -> op index */
};

#define HOST_KEY(tid) ((uint64_t)(tid) | UINT64_C(1) << 63)

static size_t add_lane(struct build *b, uint64_t key, struct tl_lane lane)
{
  struct timeline *tl = b->tl;
  GROW(tl->lanes, b->cap_lanes, tl->nlanes + 1);
  GROW(b->lane_end, b->cap_lane_end, tl->nlanes + 1);
  tl->lanes[tl->nlanes] = lane;
  b->lane_end[tl->nlanes] = INT64_MIN;
  u64map_put(&b->lane_of, key, tl->nlanes);
  return tl->nlanes++;
}

static size_t stream_lane(struct build *b, size_t stream, int64_t call_device)
{
  uint64_t i;
  if (u64map_get(&b->lane_of, stream, &i))
    return (size_t)i;
  const struct stream *st = &b->sum->streams.v[stream];
  int64_t dev = st->device >= 0 ? st->device : call_device >= 0 ? call_device : 0;
  return add_lane(b, stream,
                  (struct tl_lane){.device = dev, .stream = stream,
                                   .title = stream_title(b->db, b->cs, &b->sum->streams,
                                                         stream)});
}

static size_t host_lane(struct build *b, int64_t tid)
{
  uint64_t i;
  if (u64map_get(&b->lane_of, HOST_KEY(tid), &i))
    return (size_t)i;
  char *title = thread_title(b->db, tid);
  return add_lane(b, HOST_KEY(tid),
                  (struct tl_lane){.host = true, .device = -1, .tid = tid,
                                   .title = title});
}

static size_t add_op(struct build *b, int64_t seq, enum tl_kind kind,
                     size_t lane, int64_t start, int64_t end, bool timed,
                     char *name)
{
  struct timeline *tl = b->tl;
  GROW(tl->ops, b->cap_ops, tl->nops + 1);
  if (end < start)
    end = start;
  tl->ops[tl->nops] = (struct tl_op){seq, kind, lane, start, end, timed, name};
  if (end > b->lane_end[lane])
    b->lane_end[lane] = end;
  return tl->nops++;
}

static int64_t max3(int64_t a, int64_t b, int64_t c)
{
  int64_t m = a > b ? a : b;
  return m > c ? m : c;
}

/* the stream work, record or wait of the current call, if it is one */
static void stream_op(struct build *b, struct replay *r)
{
  const struct replay_op *o = &r->op;
  if (o->op < 0 || o->result != 0 ||
      !cl_op_is_stream_work((enum cl_op)o->op, o->has_stream))
    return;
  enum tl_kind kind;
  switch (o->op) {
  case CL_OP_KERNEL: kind = TL_KERNEL; break;
  case CL_OP_COPY: kind = TL_COPY; break;
  case CL_OP_MEMSET: kind = TL_MEMSET; break;
  case CL_OP_EVENT_RECORD: kind = TL_RECORD; break;
  case CL_OP_STREAM_WAIT_EVENT: kind = TL_WAIT; break;
  default: return;
  }
  size_t si = streams_lookup(&b->sum->streams, o->has_stream, o->stream,
                             o->device, o->seq, o->api);
  size_t lane = stream_lane(b, si, o->device);
  char api[128], by[32], hx[32];
  api_display(api, sizeof api, o->api);
  if (kind == TL_RECORD || kind == TL_WAIT) {
    uint64_t ev = kind == TL_RECORD ? o->record_event : o->wait_event;
    bool has_ev = kind == TL_RECORD ? o->has_record : o->has_wait;
    uint64_t rec;
    bool has_rec = kind == TL_WAIT && has_ev && u64map_get(&b->last_record, ev, &rec);
    int64_t at = max3(o->start_ns, b->lane_end[lane],
                      has_rec ? b->tl->ops[rec].end_ns : INT64_MIN);
    char *name = has_ev ? xasprintf("%s %s", api, fmt_hex(hx, sizeof hx, (int64_t)ev))
                        : xstrdup(api);
    size_t i = add_op(b, o->seq, kind, lane, at, at, false, name);
    if (kind == TL_RECORD && has_ev)
      u64map_put(&b->last_record, ev, i);
    if (has_rec) {
      GROW(b->tl->flows, b->cap_flows, b->tl->nflows + 1);
      b->tl->flows[b->tl->nflows++] = (struct tl_flow){(size_t)rec, i, ev};
    }
    return;
  }
  struct call_act ca;
  replay_activity(r, &ca);
  char *name;
  if (kind == TL_KERNEL) {
    const char *dn = o->kname >= 0 ? names_kernel(b->db, o->kname).demangled
                                   : NULL;
    name = xstrdup(dn ? dn : "kernel");
  } else {
    int64_t bytes = o->bytes >= 0 ? o->bytes : ca.bytes;
    const char *bs = bytes >= 0 ? fmt_bytes(by, sizeof by, bytes) : "?";
    name = kind == TL_COPY
               ? xasprintf("%s %s %s", api,
                           cl_dir_name((enum cl_dir)replay_copy_direction(r, &ca)), bs)
               : xasprintf("%s %s", api, bs);
  }
  if (ca.n)
    add_op(b, o->seq, kind, lane, ca.start_ns, ca.end_ns, true, name);
  else
    add_op(b, o->seq, kind, lane, o->start_ns, o->end_ns, false, name);
}

/* qsort's comparison has no user pointer: the lanes and the streams'
 * ranks in the summary's order, while order_lanes sorts */
static const struct build *sort_build;
static const size_t *sort_rank;

static int cmp_lane(const void *pa, const void *pb)
{
  const struct tl_lane *a = &sort_build->tl->lanes[*(const size_t *)pa];
  const struct tl_lane *b = &sort_build->tl->lanes[*(const size_t *)pb];
  if (a->host != b->host)
    return a->host ? 1 : -1;
  if (a->device != b->device)
    return a->device < b->device ? -1 : 1;
  if (!a->host && sort_rank[a->stream] != sort_rank[b->stream])
    return sort_rank[a->stream] < sort_rank[b->stream] ? -1 : 1;
  /* host lanes: in the order they appeared (their index) */
  size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
  return ia < ib ? -1 : ia > ib;
}

/* lanes by device, streams in the summary's order, host threads last */
static void order_lanes(struct build *b)
{
  struct timeline *tl = b->tl;
  const struct summary *s = b->sum;
  size_t *rank = xcalloc(s->streams.n + 1, sizeof *rank);
  for (size_t i = 0; i < s->streams.n; i++)
    rank[s->order[i]] = i;
  size_t *perm = xcalloc(tl->nlanes + 1, sizeof *perm);
  for (size_t i = 0; i < tl->nlanes; i++)
    perm[i] = i;
  sort_build = b;
  sort_rank = rank;
  qsort(perm, tl->nlanes, sizeof *perm, cmp_lane);
  size_t *new_of = xcalloc(tl->nlanes + 1, sizeof *new_of);
  struct tl_lane *lanes = xcalloc(tl->nlanes + 1, sizeof *lanes);
  for (size_t i = 0; i < tl->nlanes; i++) {
    lanes[i] = tl->lanes[perm[i]];
    new_of[perm[i]] = i;
  }
  for (size_t i = 0; i < tl->nops; i++)
    tl->ops[i].lane = new_of[tl->ops[i].lane];
  free(tl->lanes);
  tl->lanes = lanes;
  free(new_of);
  free(perm);
  free(rank);
}

/* the host accesses, at the end of the call before each */
static void host_accesses(struct build *b, const int64_t *call_seq,
                          const int64_t *call_end, size_t ncalls)
{
  sqlite3_stmt *st = db_prepare(
      b->db, "SELECT seq, tid, kind, address FROM host_accesses ORDER BY seq");
  size_t c = 0;
  while (db_step(b->db, st)) {
    int64_t seq = db_int(st, 0);
    while (c < ncalls && call_seq[c] < seq)
      c++;
    if (c == 0 && ncalls == 0)
      continue; /* no time to put it at */
    int64_t at = c ? call_end[c - 1] : call_end[0];
    size_t lane = host_lane(b, db_int(st, 1));
    char hx[32];
    const char *kind = db_text(st, 2);
    add_op(b, seq, TL_ACCESS, lane, at, at, false,
           xasprintf("host %s at %s", kind ? kind : "access",
                     fmt_hex(hx, sizeof hx, db_int(st, 3))));
  }
  db_finalize(st);
}

void timeline_build(struct timeline *tl, struct cl_db *db,
                    const struct activity *act, struct summary *sum,
                    struct callsites *cs)
{
  memset(tl, 0, sizeof *tl);
  struct build b = {.tl = tl, .db = db, .act = act, .sum = sum, .cs = cs};
  u64map_init(&b.lane_of);
  u64map_init(&b.last_record);
  int64_t *call_seq = NULL, *call_end = NULL;
  size_t ncalls = 0, cap_seq = 0, cap_end = 0;

  struct replay r;
  replay_begin(&r, db, act);
  r.no_args = true; /* kernel arguments: not read here */
  while (replay_next(&r)) {
    const struct replay_op *o = &r.op;
    char api[128];
    api_display(api, sizeof api, o->api);
    add_op(&b, o->seq, o->sync_kind ? TL_SYNC : TL_CALL, host_lane(&b, o->tid),
           o->start_ns, o->end_ns, false, xstrdup(api));
    GROW(call_seq, cap_seq, ncalls + 1);
    GROW(call_end, cap_end, ncalls + 1);
    call_seq[ncalls] = o->seq;
    call_end[ncalls++] = o->end_ns;
    stream_op(&b, &r);
  }
  replay_end(&r);
  host_accesses(&b, call_seq, call_end, ncalls);
  free(call_seq);
  free(call_end);
  order_lanes(&b);

  tl->origin_ns = INT64_MAX;
  for (size_t i = 0; i < tl->nops; i++)
    if (tl->ops[i].start_ns < tl->origin_ns)
      tl->origin_ns = tl->ops[i].start_ns;
  if (!tl->nops)
    tl->origin_ns = 0;
  for (size_t i = 0; i < tl->nops; i++) {
    struct tl_op *x = &tl->ops[i];
    x->start_ns = sat_sub(x->start_ns, tl->origin_ns);
    x->end_ns = sat_sub(x->end_ns, tl->origin_ns);
    if (x->end_ns > tl->end_ns)
      tl->end_ns = x->end_ns;
  }
  u64map_free(&b.lane_of);
  u64map_free(&b.last_record);
  free(b.lane_end);
}

void timeline_free(struct timeline *tl)
{
  for (size_t i = 0; i < tl->nlanes; i++)
    free(tl->lanes[i].title);
  for (size_t i = 0; i < tl->nops; i++)
    free(tl->ops[i].name);
  free(tl->lanes);
  free(tl->ops);
  free(tl->flows);
  memset(tl, 0, sizeof *tl);
}

long timeline_find(const struct timeline *tl, int64_t seq)
{
  long host = -1;
  for (size_t i = 0; i < tl->nops; i++) {
    if (tl->ops[i].seq != seq)
      continue;
    if (!tl->lanes[tl->ops[i].lane].host)
      return (long)i;
    if (host < 0)
      host = (long)i;
  }
  return host;
}

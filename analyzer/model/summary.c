/* summary.c - builds struct summary: meta, devices and drops by small
 * queries; streams, copies and kernels in one pass over the calls in seq
 * order (joined with transfers and kernels, GPU time from the activity
 * index, host memory kinds from the activity or else the replayed memory
 * table); synchronization by a grouped query. */
#include "model/summary.h"

#include <stdlib.h>
#include <string.h>

#include "cudalens/semantics.h"
#include "model/calls.h"
#include "model/names.h"
#include "model/replay.h"
#include "strarray.h"
#include "u64map.h"
#include "util.h"

const char *const stream_op_names[SOP_COUNT] = {
    "kernels", "copies", "memsets", "event_records", "waits", "syncs",
    "other"};

const char *copy_host_kind_name(int k)
{
  return k >= 0 && k < CL_MEMKIND_COUNT ? cl_memkind_name((enum cl_memkind)k)
                                        : "-";
}

static int64_t meta_int(struct cl_db *d, const char *key)
{
  char *v = db_meta(d, key);
  int64_t r = -1;
  if (v && *v) {
    char *end;
    long long x = strtoll(v, &end, 10);
    if (!*end)
      r = x;
  }
  free(v);
  return r;
}

const struct not_recorded_info not_recorded_info[NOT_RECORDED_COUNT] = {
    {"gpu_activity", "GPU times, and the memory kinds CUPTI reports for "
                     "copies (recorded with CUDALENS_GPU_ACTIVITY=0)"},
    {"kernel_times", "kernel GPU times (CUDALENS_KERNEL_TIMES=1 records "
                     "them)"},
    {"bench_phases", "the calls of a benchmark's unrecorded phases "
                     "(CUDALENS_BENCH_PHASES=1): findings mean nothing"},
};

static void load_process(struct process *p, struct cl_db *d)
{
  p->pid = db_meta(d, "pid");
  p->ppid = db_meta(d, "ppid");
  p->host = db_meta(d, "hostname");
  p->exe = db_meta(d, "exe");
  p->cudalens_version = db_meta(d, "cudalens_version");
  p->cupti_version = db_meta(d, "cupti_version");
  p->capture = db_meta(d, "capture");
  p->cuda_visible_devices = db_meta(d, "cuda_visible_devices");
  char *cmd = db_meta(d, "cmdline");
  if (cmd && strarray_parse_json(cmd, &p->argv, &p->argc) < 0)
    p->cmdline_raw = cmd;
  else
    free(cmd);
  p->rank = meta_int(d, "rank");
  p->start_ns = meta_int(d, "start_ns");
  p->end_ns = meta_int(d, "end_ns");
  p->clean_exit = meta_int(d, "clean_exit") == 1;
  p->writer_waits = meta_int(d, "ring_full_waits");
  p->writer_wait_ns = meta_int(d, "ring_full_wait_ns");
  if (p->writer_waits <= 0 || p->writer_wait_ns < 0)
    p->writer_waits = p->writer_wait_ns = 0;
  /* recordings older than these keys recorded everything */
  if (meta_int(d, "gpu_activity") == 0)
    p->not_recorded |= 1u << NOT_RECORDED_GPU_ACTIVITY;
  else if (meta_int(d, "kernel_times") == 0)
    p->not_recorded |= 1u << NOT_RECORDED_KERNEL_TIMES;
  if (meta_int(d, "bench_phases") == 1)
    p->not_recorded |= 1u << NOT_RECORDED_BENCH_PHASES;

  const struct calls_facts *f = calls_facts(d);
  p->calls = f->calls;
  p->threads = f->threads;
  p->last_ns = f->has_end ? f->max_end : -1;

  size_t cap = 0;
  sqlite3_stmt *st = db_prepare(d, "SELECT reason, count FROM drops WHERE count <> 0"
                     " ORDER BY reason");
  while (db_step(d, st)) {
    GROW(p->drops, cap, p->ndrops + 1);
    p->drops[p->ndrops].reason = xstrdup(db_text(st, 0));
    p->drops[p->ndrops].count = db_int(st, 1);
    p->ndrops++;
  }
  db_finalize(st);
}

static void load_devices(struct summary *s, struct cl_db *d)
{
  size_t cap = 0;
  sqlite3_stmt *st = db_prepare(
      d, "SELECT ordinal, name, uuid, pci_bus_id, cc_major, cc_minor,"
         " total_mem FROM devices ORDER BY ordinal");
  while (db_step(d, st)) {
    GROW(s->devices, cap, s->ndevices + 1);
    struct device *x = &s->devices[s->ndevices++];
    x->ordinal = db_int(st, 0);
    x->name = xstrdup(db_text(st, 1));
    x->uuid = xstrdup(db_text(st, 2));
    x->pci_bus_id = xstrdup(db_text(st, 3));
    x->cc_major = db_null(st, 4) ? -1 : db_int(st, 4);
    x->cc_minor = db_null(st, 5) ? -1 : db_int(st, 5);
    x->total_mem = db_null(st, 6) ? -1 : db_int(st, 6);
  }
  db_finalize(st);
}

/* which per-stream counter an operation feeds; -1 when it is neither stream
 * work nor a wait for a stream (the ordering table, common/semantics.c:
 * stream-ordered allocation counts only when the call names a stream) */
static int stream_op_of(int op, bool has_stream)
{
  if (op < 0)
    return -1;
  const struct cl_op_sem *sem = cl_op_sem((enum cl_op)op);
  if (!cl_op_is_stream_work((enum cl_op)op, has_stream) &&
      sem->host != CL_HOST_STREAM)
    return -1;
  switch (op) {
  case CL_OP_KERNEL:
    return SOP_KERNEL;
  case CL_OP_COPY:
    return SOP_COPY;
  case CL_OP_MEMSET:
    return SOP_MEMSET;
  case CL_OP_EVENT_RECORD:
    return SOP_RECORD;
  case CL_OP_STREAM_WAIT_EVENT:
    return SOP_WAIT;
  default:
    return sem->host == CL_HOST_STREAM ? SOP_SYNC : SOP_OTHER;
  }
}

struct pass {
  struct summary *s;
  struct u64map kidx; /* stream<<40 | name -> index in s->kstats */
  size_t kcap;
};

#define NAME_MASK ((UINT64_C(1) << 40) - 1)

static void count_kernel(struct pass *p, size_t stream, int64_t name,
                         const struct call_act *ca)
{
  struct summary *s = p->s;
  struct stream_stat *ss = &s->sstats[stream];
  ss->kernels++;
  if (ca->n) {
    ss->kernels_timed++;
    ss->kernel_gpu_ns = sat_add(ss->kernel_gpu_ns, ca->gpu_ns);
  }
  uint64_t key = (uint64_t)stream << 40 | ((uint64_t)name & NAME_MASK);
  uint64_t i;
  if (!u64map_get(&p->kidx, key, &i)) {
    GROW(s->kstats, p->kcap, s->nkstats + 1);
    i = s->nkstats++;
    s->kstats[i].stream = stream;
    s->kstats[i].name = name;
    u64map_put(&p->kidx, key, i);
  }
  s->kstats[i].count++;
  s->kstats[i].gpu_ns = sat_add(s->kstats[i].gpu_ns, ca->gpu_ns);
}

static void calls_pass(struct summary *s, struct cl_db *d,
                       const struct activity *act)
{
  struct pass p = {.s = s};
  u64map_init(&p.kidx);
  size_t scap = s->streams.n;
  s->sstats = xcalloc(scap, sizeof *s->sstats);

  struct replay r;
  replay_begin(&r, d, act);
  r.no_args = true; /* kernel arguments: not read here */
  while (replay_next(&r)) {
    const struct replay_op *o = &r.op;
    int sop = stream_op_of(o->op, o->has_stream);
    if (sop < 0)
      continue;
    size_t si = streams_lookup(&s->streams, o->has_stream, o->stream,
                               o->device, o->seq, o->api);
    if (s->streams.n > scap) {
      s->sstats = xrealloc(s->sstats, s->streams.n * sizeof *s->sstats);
      memset(&s->sstats[scap], 0, (s->streams.n - scap) * sizeof *s->sstats);
      scap = s->streams.n;
    }
    s->sstats[si].ops[sop]++;
    if (sop != SOP_KERNEL && sop != SOP_COPY)
      continue;

    struct call_act ca;
    replay_activity(&r, &ca);
    if (sop == SOP_KERNEL) {
      count_kernel(&p, si, o->kname >= 0 ? o->kname : ca.name, &ca);
      continue;
    }
    int dir = replay_copy_direction(&r, &ca);
    int hk = memmodel_copy_host_kind(&r.mm, dir, &ca, o->src, o->dst);
    int64_t bytes = o->bytes >= 0 ? o->bytes : ca.bytes > 0 ? ca.bytes : 0;
    struct copy_stat *c = &s->copies[dir][hk];
    c->count++;
    c->bytes = sat_add(c->bytes, bytes);
    if (ca.n) {
      c->timed++;
      c->timed_bytes = sat_add(c->timed_bytes, ca.bytes >= 0 ? ca.bytes : bytes);
      c->gpu_ns = sat_add(c->gpu_ns, ca.gpu_ns);
    }
  }
  replay_end(&r);
  u64map_free(&p.kidx);
}

static int cmp_kstat(const void *pa, const void *pb)
{
  const struct kernel_stat *a = *(struct kernel_stat *const *)pa;
  const struct kernel_stat *b = *(struct kernel_stat *const *)pb;
  if (a->gpu_ns != b->gpu_ns)
    return a->gpu_ns > b->gpu_ns ? -1 : 1;
  if (a->count != b->count)
    return a->count > b->count ? -1 : 1;
  int c = strcmp(a->display ? a->display : "", b->display ? b->display : "");
  if (c)
    return c;
  return a->name < b->name ? -1 : a->name > b->name;
}

static void rank_kernels(struct summary *s, struct cl_db *d)
{
  for (size_t i = 0; i < s->nkstats; i++) {
    struct kernel_stat *k = &s->kstats[i];
    struct kernel_name kn = {NULL, NULL};
    if (k->name >= 0)
      kn = names_kernel(d, k->name);
    k->mangled = kn.mangled ? xstrdup(kn.mangled) : NULL;
    k->display = xstrdup(kn.mangled ? kn.demangled : "(unknown kernel)");
  }
  struct kernel_stat **all = xcalloc(s->nkstats, sizeof *all);
  for (size_t i = 0; i < s->nkstats; i++)
    all[i] = &s->kstats[i];
  qsort(all, s->nkstats, sizeof *all, cmp_kstat);
  for (size_t i = 0; i < s->nkstats; i++) {
    struct stream_stat *ss = &s->sstats[all[i]->stream];
    ss->nkernel_names++;
    if (ss->ntop < SUMMARY_TOP_KERNELS) {
      if (!ss->top)
        ss->top = xcalloc(SUMMARY_TOP_KERNELS, sizeof *ss->top);
      ss->top[ss->ntop++] = all[i];
    }
  }
  free(all);
}

static void load_syncs(struct summary *s, struct cl_db *d)
{
  size_t cap = 0;
  sqlite3_stmt *st = db_prepare(
      d, "SELECT s.kind, count(*), total(max(c.end_ns - c.start_ns, 0)),"
         " max(max(c.end_ns - c.start_ns, 0)), sum(s.complete <> 0)"
         " FROM syncs s JOIN calls c ON c.seq = s.seq"
         " GROUP BY s.kind ORDER BY s.kind");
  while (db_step(d, st)) {
    GROW(s->syncs, cap, s->nsyncs + 1);
    struct sync_stat *x = &s->syncs[s->nsyncs++];
    x->kind = xstrdup(db_text(st, 0));
    x->count = db_int(st, 1);
    x->host_ns = db_int(st, 2);
    x->max_ns = db_int(st, 3);
    x->complete = db_int(st, 4);
  }
  db_finalize(st);
}

void summary_build(struct summary *s, struct cl_db *d,
                   const struct activity *act)
{
  memset(s, 0, sizeof *s);
  load_process(&s->proc, d);
  load_devices(s, d);
  streams_load(&s->streams, d);
  calls_pass(s, d, act);
  rank_kernels(s, d);
  load_syncs(s, d);
  s->order = streams_order(&s->streams);
}

void summary_free(struct summary *s)
{
  struct process *p = &s->proc;
  free(p->pid); free(p->ppid); free(p->host); free(p->exe);
  free(p->cudalens_version); free(p->cupti_version); free(p->capture);
  free(p->cuda_visible_devices); free(p->cmdline_raw);
  strarray_free(p->argv, p->argc);
  for (size_t i = 0; i < p->ndrops; i++)
    free(p->drops[i].reason);
  free(p->drops);
  for (size_t i = 0; i < s->ndevices; i++) {
    free(s->devices[i].name);
    free(s->devices[i].uuid);
    free(s->devices[i].pci_bus_id);
  }
  free(s->devices);
  for (size_t i = 0; i < s->streams.n; i++)
    free(s->sstats[i].top);
  free(s->sstats);
  streams_free(&s->streams);
  free(s->order);
  for (size_t i = 0; i < s->nkstats; i++) {
    free(s->kstats[i].display);
    free(s->kstats[i].mangled);
  }
  free(s->kstats);
  for (size_t i = 0; i < s->nsyncs; i++)
    free(s->syncs[i].kind);
  free(s->syncs);
  memset(s, 0, sizeof *s);
}

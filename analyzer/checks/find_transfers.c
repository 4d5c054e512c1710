/* find_transfers.c - findings about copies and memsets:
 *
 * Each is a note instead of a warning when it costs little or runs only
 * during setup (finding_cost_severity, findings.h).
 *
 *   pageable-async-copy (warning)  an async copy whose host side is
 *       pageable memory: CUDA stages it through a pinned buffer, so it is
 *       not asynchronous.  Per call site and direction: count, bytes, GPU
 *       time, achieved bandwidth, host time spent in the calls, and the
 *       bandwidth pinned copies of the same direction reached in the same
 *       recording.  An async copy that the thread's next call, made from
 *       the same call site, waits for (a synchronization of its stream,
 *       context or device: PyTorch's to()) is a blocking copy (below),
 *       not this.
 *   sync-copy (warning; note for host-to-device copies of 64 KiB or less)
 *       10 or more blocking copies from one call site: cudaMemcpy-style
 *       calls between host and device, and async copies immediately
 *       followed by a synchronization of their stream or device (PyTorch's
 *       to() without non_blocking).  Reports the host time blocked.
 *       Device-to-device and peer copies do not block the host and are
 *       left out.
 *   sync-memset (note)  10 or more non-stream-ordered memsets from one call
 *       site.
 *
 * One pass over the calls in seq order; the host memory kind of a copy is
 * taken when the copy is seen (the memory table replayed up to it), the
 * decision async-or-blocking when the thread's next call is seen. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/analyses.h"
#include "checks/find_common.h"
#include "cudalens/format.h"
#include "model/replay.h"
#include "util.h"

#define SYNC_COPY_MIN 10
#define SYNC_MEMSET_MIN 10
#define SMALL_HTOD_BYTES (64 * 1024)

/* tags of the sync-copy groups */
#define TAG_SMALL 1u   /* host-to-device of at most 64 KiB */
#define TAG_PAIR 2u    /* async copy + synchronization */

/* an async copy whose thread has made no later call yet */
struct pending {
  bool used;
  int64_t seq, host_ns, bytes;
  size_t stream; /* the copy's stream instance */
  size_t site;
  int dir, host_kind;
  struct call_act ca;
  char api[96];
};

struct pass {
  struct report_ctx *ctx;
  struct sites sites;
  struct groups pageable, synccopy, syncmemset;
  struct streams ss;
  struct pending *pend;
  size_t npend, cappend;
  struct u64map by_tid; /* tid -> index in pend */
  int64_t wall_ns;      /* process_wall_ns */
  int64_t first_kernel; /* first_kernel_seq */
};

static void add_sync_copy(struct pass *p, size_t site, int64_t seq, int dir,
                          int64_t bytes, int64_t host_ns, bool pair,
                          const struct call_act *ca, const char *api)
{
  uint32_t tag = (pair ? TAG_PAIR : 0) |
                 (dir == CL_DIR_HTOD && bytes <= SMALL_HTOD_BYTES ? TAG_SMALL : 0);
  struct group *g = groups_get(&p->synccopy, site, tag, seq);
  g->count++;
  g->bytes = sat_add(g->bytes, bytes);
  g->host_ns = sat_add(g->host_ns, host_ns);
  if (g->dir < 0)
    g->dir = dir;
  else if (g->dir != dir)
    g->dir = CL_DIR_UNKNOWN; /* mixed */
  if (ca->n) {
    g->timed++;
    g->timed_bytes = sat_add(g->timed_bytes, ca->bytes >= 0 ? ca->bytes : bytes);
    g->gpu_ns = sat_add(g->gpu_ns, ca->gpu_ns);
  }
  if (!g->text)
    g->text = xstrdup(api);
}

/* the thread's next call after an async copy is known: SYNCED tells
 * whether it waited for the copy from the same call site (then SYNC_NS is
 * its host time): one blocking operation such as PyTorch's to().  A
 * synchronization at another line does not make the copy the program
 * asked to be asynchronous a blocking one. */
static void settle(struct pass *p, struct pending *x, bool synced,
                   int64_t sync_ns, const char *sync_api)
{
  if (!x->used)
    return;
  x->used = false;
  if (synced) {
    if (x->dir == CL_DIR_HTOD || x->dir == CL_DIR_DTOH) {
      char api[160];
      snprintf(api, sizeof api, "%s + %s", x->api, sync_api);
      add_sync_copy(p, x->site, x->seq, x->dir, x->bytes, sat_add(x->host_ns, sync_ns),
                    true, &x->ca, api);
    }
    return;
  }
  if (x->host_kind != CL_MEMKIND_PAGEABLE || x->dir == CL_DIR_HTOH)
    return; /* host-to-host copies are the host's own work */
  struct group *g = groups_get(&p->pageable, x->site, (uint32_t)x->dir, x->seq);
  g->dir = x->dir;
  g->count++;
  g->bytes = sat_add(g->bytes, x->bytes);
  g->host_ns = sat_add(g->host_ns, x->host_ns);
  if (x->ca.n) {
    g->timed++;
    g->timed_bytes = sat_add(g->timed_bytes, x->ca.bytes >= 0 ? x->ca.bytes : x->bytes);
    g->gpu_ns = sat_add(g->gpu_ns, x->ca.gpu_ns);
  }
  if (!g->text)
    g->text = xstrdup(x->api);
}

static struct pending *pending_of(struct pass *p, int64_t tid)
{
  uint64_t i;
  if (!u64map_get(&p->by_tid, (uint64_t)tid, &i)) {
    GROW(p->pend, p->cappend, p->npend + 1);
    i = p->npend++;
    memset(&p->pend[i], 0, sizeof p->pend[i]);
    u64map_put(&p->by_tid, (uint64_t)tid, i);
  }
  return &p->pend[i];
}

static void scan(struct pass *p)
{
  struct replay r;
  replay_begin(&r, p->ctx->db, p->ctx->act);
  r.no_args = true; /* kernel arguments: not read here */
  while (replay_next(&r)) {
    const struct replay_op *o = &r.op;
    int64_t seq = o->seq;
    int64_t host_ns = sat_sub(o->end_ns, o->start_ns);
    if (host_ns < 0)
      host_ns = 0;
    /* the previous call of this thread may have been an async copy */
    struct pending *x = pending_of(p, o->tid);
    if (!x->used && (!o->transfer || o->result != 0))
      continue; /* nothing to settle or count */
    char api[96];
    callsite_user_api(p->ctx->cs, o->stack, o->api, api, sizeof api);
    if (x->used) {
      bool synced = sync_covers(&p->ss, o, x->stream);
      if (synced)
        synced = x->site == sites_of(&p->sites, o->stack, o->pystack);
      settle(p, x, synced, host_ns, api);
    }

    if (!o->transfer || o->result != 0)
      continue;
    size_t site = sites_of(&p->sites, o->stack, o->pystack);
    bool async = o->async;
    int64_t bytes = o->bytes < 0 ? 0 : o->bytes;
    if (o->is_memset) {
      if (!async) {
        struct group *g = groups_get(&p->syncmemset, site, 0, seq);
        g->count++;
        g->bytes = sat_add(g->bytes, bytes);
        g->host_ns = sat_add(g->host_ns, host_ns);
        if (!g->text)
          g->text = xstrdup(api);
      }
      continue;
    }
    struct call_act ca;
    replay_activity(&r, &ca);
    uint64_t src = o->src, dst = o->dst;
    int dir = replay_copy_direction(&r, &ca);
    if (bytes <= 0 && ca.bytes > 0)
      bytes = ca.bytes;
    if (!async) {
      if (dir == CL_DIR_HTOD || dir == CL_DIR_DTOH)
        add_sync_copy(p, site, seq, dir, bytes, host_ns, false, &ca, api);
      continue;
    }
    x->used = true;
    x->seq = seq;
    x->host_ns = host_ns;
    x->bytes = bytes;
    x->stream = streams_lookup(&p->ss, o->has_stream, o->stream, o->device,
                               seq, o->api);
    x->site = site;
    x->dir = dir;
    x->host_kind = memmodel_copy_host_kind(&r.mm, dir, &ca, src, dst);
    x->ca = ca;
    snprintf(x->api, sizeof x->api, "%s", api);
  }
  replay_end(&r);
  for (size_t i = 0; i < p->npend; i++)
    settle(p, &p->pend[i], false, 0, "");
}

/* pinned (or registered) copies of direction DIR in the summary */
static void pinned_rate(const struct summary *s, int dir, int64_t *bytes,
                        int64_t *ns)
{
  *bytes = *ns = 0;
  if (dir < 0 || dir >= CL_DIR_COUNT)
    return;
  const int kinds[] = {CL_MEMKIND_PINNED, CL_MEMKIND_REGISTERED};
  for (int i = 0; i < 2; i++) {
    const struct copy_stat *c = &s->copies[dir][kinds[i]];
    *bytes = sat_add(*bytes, c->timed_bytes);
    *ns = sat_add(*ns, c->gpu_ns);
  }
}

static const char *dir_words(int dir)
{
  switch (dir) {
  case CL_DIR_HTOD: return "host-to-device";
  case CL_DIR_DTOH: return "device-to-host";
  default: return "host/device";
  }
}

/* "from" pageable memory for a host-to-device copy, "to" it for one back */
static const char *dir_preposition(int dir)
{
  return dir == CL_DIR_HTOD ? "from" : dir == CL_DIR_DTOH ? "to" : "with";
}

/* the severity rule of findings.h for the finding of group G */
static void cost_severity(struct pass *p, struct finding *f,
                          const struct group *g)
{
  finding_cost_severity(f, p->wall_ns,
                        p->first_kernel != INT64_MAX &&
                            g->last_seq < p->first_kernel);
}

static void report_pageable(struct pass *p, struct findings *out)
{
  char b1[32], b2[32], b3[32];
  for (size_t i = 0; i < p->pageable.n; i++) {
    const struct group *g = &p->pageable.v[i];
    const struct site *s = &p->sites.v[g->site];
    char timing[128] = "";
    double bw = gbps(g->timed_bytes, g->gpu_ns);
    int64_t pb, pns;
    pinned_rate(p->ctx->sum, g->dir, &pb, &pns);
    double pbw = gbps(pb, pns);
    if (g->timed)
      snprintf(timing, sizeof timing, ", GPU time %s at %.2f GB/s",
               fmt_ns(b2, sizeof b2, g->gpu_ns), bw);
    struct finding *f = findings_add(
        out, CHECK_PAGEABLE_ASYNC_COPY, &s->loc,
        "%s %s pageable memory is staged, not asynchronous: %s %s, host"
        " blocked %s%s",
        g->text, dir_preposition(g->dir), fmt_bytes(b1, sizeof b1, g->bytes),
        dir_words(g->dir), fmt_ns(b3, sizeof b3, g->host_ns), timing);
    f->count = (uint64_t)g->count;
    finding_add_op(f, g->first_seq); /* the first occurrence */
    f->cost_ns = g->host_ns > g->gpu_ns ? g->host_ns : g->gpu_ns;
    finding_set_extra(f, "bytes", g->bytes);
    finding_set_extra(f, "gpu_ns", g->gpu_ns);
    finding_set_extra(f, "host_ns", g->host_ns);
    if (bw > 0)
      finding_set_extra(f, "bandwidth_mbps", (int64_t)(bw * 1000.0));
    if (pbw > 0) {
      finding_set_extra(f, "pinned_bandwidth_mbps", (int64_t)(pbw * 1000.0));
      if (g->timed)
        finding_add_detail(f, NULL, "pinned %s copies in this run reached"
                           " %.2f GB/s", dir_words(g->dir), pbw);
    }
    cost_severity(p, f, g);
    finding_set_fix(f, "allocate the host buffer pinned (cudaMallocHost/"
                       "cudaHostAlloc, or cudaHostRegister it once), reused"
                       " across iterations; PyTorch: pin_memory() once"
                       " outside the loop, then to(device, non_blocking=True)");
  }
}

static void report_sync_copies(struct pass *p, struct findings *out)
{
  char b1[32], b2[32], b3[32];
  for (size_t i = 0; i < p->synccopy.n; i++) {
    const struct group *g = &p->synccopy.v[i];
    if (g->count < SYNC_COPY_MIN)
      continue;
    const struct site *s = &p->sites.v[g->site];
    bool small = g->tag & TAG_SMALL, pair = g->tag & TAG_PAIR;
    char timing[128] = "";
    if (g->timed)
      snprintf(timing, sizeof timing, ", GPU time %s",
               fmt_ns(b2, sizeof b2, g->gpu_ns));
    struct finding *f = findings_add(
        out, CHECK_SYNC_COPY, &s->loc,
        "%s blocks the host on each %s copy%s: %s in all, host blocked %s%s",
        g->text, g->dir == CL_DIR_HTOD || g->dir == CL_DIR_DTOH
                     ? dir_words(g->dir) : "host/device",
        small ? " of 64 KiB or less" : "",
        fmt_bytes(b1, sizeof b1, g->bytes), fmt_ns(b3, sizeof b3, g->host_ns),
        timing);
    if (small)
      finding_lower_severity(f, SEV_NOTE);
    f->count = (uint64_t)g->count;
    finding_add_op(f, g->first_seq); /* the first occurrence */
    f->cost_ns = g->host_ns;
    finding_set_extra(f, "bytes", g->bytes);
    finding_set_extra(f, "gpu_ns", g->gpu_ns);
    finding_set_extra(f, "host_ns", g->host_ns);
    cost_severity(p, f, g);
    if (pair)
      finding_set_fix(f, "copy from pinned memory with cudaMemcpyAsync and"
                         " synchronize once when the data is needed (PyTorch:"
                         " to(device, non_blocking=True) from pinned tensors),"
                         " or batch the copies into one");
    else
      finding_set_fix(f, "batch the copies into one outside the loop, or use"
                         " cudaMemcpyAsync from pinned memory on a stream and"
                         " synchronize once");
  }
}

static void report_sync_memsets(struct pass *p, struct findings *out)
{
  char b1[32], b2[32];
  for (size_t i = 0; i < p->syncmemset.n; i++) {
    const struct group *g = &p->syncmemset.v[i];
    if (g->count < SYNC_MEMSET_MIN)
      continue;
    const struct site *s = &p->sites.v[g->site];
    struct finding *f = findings_add(
        out, CHECK_SYNC_MEMSET, &s->loc,
        "%s is not stream-ordered: %s in all, host time %s",
        g->text, fmt_bytes(b1, sizeof b1, g->bytes),
        fmt_ns(b2, sizeof b2, g->host_ns));
    f->count = (uint64_t)g->count;
    finding_add_op(f, g->first_seq); /* the first occurrence */
    f->cost_ns = g->host_ns;
    finding_set_extra(f, "bytes", g->bytes);
    finding_set_extra(f, "host_ns", g->host_ns);
    cost_severity(p, f, g);
    finding_set_fix(f, "use cudaMemsetAsync on the stream that uses the"
                       " memory, or clear it once outside the loop");
  }
}

void analysis_transfers(struct report_ctx *ctx, struct findings *out)
{
  struct pass p = {.ctx = ctx};
  sites_init(&p.sites, ctx->cs);
  groups_init(&p.pageable);
  groups_init(&p.synccopy);
  groups_init(&p.syncmemset);
  u64map_init(&p.by_tid);
  streams_load(&p.ss, ctx->db);
  scan(&p);
  p.wall_ns = process_wall_ns(ctx);
  p.first_kernel = first_kernel_seq(ctx);
  report_pageable(&p, out);
  report_sync_copies(&p, out);
  report_sync_memsets(&p, out);
  free(p.pend);
  u64map_free(&p.by_tid);
  groups_free(&p.pageable);
  groups_free(&p.synccopy);
  groups_free(&p.syncmemset);
  sites_free(&p.sites);
  streams_free(&p.ss);
}

/* find_streams.c - the default-stream-serialization finding (note): work
 * on the legacy default stream (stream 0) issued while work on blocking
 * streams of the same device is outstanding, or followed by work on them
 * while it is outstanding.  The legacy stream waits for all earlier work
 * of the blocking streams of its device and they wait for it, so the two
 * cannot overlap.  Blocking streams are streams created without
 * cudaStreamNonBlocking and the per-thread default stream; streams not
 * created in the recording are left out (their flags are unknown).
 *
 * Outstanding work is tracked per stream in seq order: a stream has
 * outstanding work from its last stream task (cl_op_is_stream_task:
 * kernel, copy, memset, host function, graph launch or prefetch) until a
 * host synchronization covers it, by the one coverage rule (ops.def
 * section 3b, cl_sync_covers): cudaStreamSynchronize of it or of the
 * legacy stream, a successful cudaStreamQuery, cudaDeviceSynchronize,
 * cuCtxSynchronize, and a copy or memset on the legacy stream whose rule
 * (ops.def section 2) says the host knows it finished.
 * Grouped per call site of the legacy-stream work; the message names the
 * streams that lost overlap, and the related locations where they were
 * created. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/analyses.h"
#include "checks/find_common.h"
#include "cudalens/format.h"
#include "cudalens/semantics.h"
#include "model/names.h"
#include "model/replay.h"
#include "model/streams.h"
#include "util.h"

#define MAX_LOST 16 /* streams remembered per finding */

struct sgroup {
  size_t site;
  int64_t device, count, gpu_ns, first_seq;
  size_t lost[MAX_LOST];
  size_t nlost, more;
  char *label;
};

struct spass {
  struct report_ctx *ctx;
  struct streams ss;
  struct sites sites;
  struct sgroup *g;
  size_t ng, capg;
  bool *pending; /* per stream instance */
  size_t cappending;
  /* per legacy instance: the latest legacy op while the legacy stream has
   * outstanding work: its group (or SIZE_MAX before it is counted), and
   * what its label is made of (made when a group is) */
  struct lastl { bool live, counted; size_t site, group; int64_t gpu_ns;
                 int64_t seq, stack, kname; int op;
                 const char *api; /* the calls log's */ } *last;
};

/* a stream known to synchronize with the legacy stream (one whose flags
 * are unknown is left out: a note needs certainty) */
static bool blocking_stream(const struct stream *st)
{
  enum cl_stream_class c = stream_class(st);
  return c == CL_SC_PER_THREAD || c == CL_SC_BLOCKING;
}

static void fit(struct spass *p)
{
  if (p->ss.n <= p->cappending && p->pending)
    return;
  size_t old = p->cappending, n = p->ss.n * 2 + 8;
  p->pending = xrealloc(p->pending, n * sizeof *p->pending);
  p->last = xrealloc(p->last, n * sizeof *p->last);
  memset(p->pending + old, 0, (n - old) * sizeof *p->pending);
  memset(p->last + old, 0, (n - old) * sizeof *p->last);
  p->cappending = n;
}

/* the label of legacy op L: its kernel, else the API the user called */
static char *legacy_label(struct spass *p, const struct lastl *l)
{
  char label[512], api[96];
  callsite_user_api(p->ctx->cs, l->stack, l->api, api, sizeof api);
  if (l->op == CL_OP_KERNEL && l->kname >= 0) {
    const char *dm = names_kernel(p->ctx->db, l->kname).demangled;
    snprintf(label, sizeof label, "kernel %s", dm ? dm : "?");
  } else {
    snprintf(label, sizeof label, "%s", api);
  }
  return xstrdup(label);
}

static struct sgroup *group_of(struct spass *p, const struct lastl *l,
                               int64_t dev, size_t *gi)
{
  for (size_t i = 0; i < p->ng; i++)
    if (p->g[i].site == l->site && p->g[i].device == dev) {
      *gi = i;
      return &p->g[i];
    }
  GROW(p->g, p->capg, p->ng + 1);
  struct sgroup *g = &p->g[p->ng];
  memset(g, 0, sizeof *g);
  g->site = l->site;
  g->device = dev;
  g->first_seq = l->seq;
  g->label = legacy_label(p, l);
  *gi = p->ng++;
  return g;
}

static void lose(struct sgroup *g, size_t stream)
{
  for (size_t i = 0; i < g->nlost; i++)
    if (g->lost[i] == stream)
      return;
  if (g->nlost < MAX_LOST)
    g->lost[g->nlost++] = stream;
  else
    g->more++;
}

/* count the legacy op described by L in its group (once) */
static struct sgroup *count_legacy(struct spass *p, struct lastl *l,
                                   int64_t dev)
{
  if (l->counted)
    return &p->g[l->group];
  size_t gi;
  struct sgroup *g = group_of(p, l, dev, &gi);
  g->count++;
  g->gpu_ns = sat_add(g->gpu_ns, l->gpu_ns);
  l->counted = true;
  l->group = gi;
  return g;
}

/* A host synchronization of KIND of stream instance I (DEVICE: none)
 * returned; DEV: the device synchronized (-1: unknown, every device).  The
 * streams it covers (ops.def section 3b) have no outstanding work. */
static void synced(struct spass *p, enum cl_sync_kind kind, size_t i,
                   int64_t dev)
{
  struct cl_sync s = {kind, kind == CL_SYNC_DEVICE ? CL_SC_ANY
                                                   : stream_class(&p->ss.v[i])};
  for (size_t j = 0; j < p->ss.n; j++) {
    struct cl_prior q = {stream_class(&p->ss.v[j]),
                         kind != CL_SYNC_DEVICE && j == i,
                         dev < 0 || p->ss.v[j].device == dev};
    if (cl_sync_covers(&s, &q) != CL_COVER_NONE) {
      p->pending[j] = false;
      p->last[j].live = false;
    }
  }
}

static void scan(struct spass *p)
{
  struct replay r;
  replay_begin(&r, p->ctx->db, p->ctx->act);
  r.no_args = true; /* kernel arguments: not read here */
  while (replay_next(&r)) {
    const struct replay_op *o = &r.op;
    if (!o->api)
      continue; /* a call of an API the recording does not describe */
    int64_t seq = o->seq;
    int64_t dev = o->device;
    if (o->sync_kind) {
      /* what the host learns (ops.def): a device done, or a stream */
      enum cl_host host = o->sync_op < 0 ? CL_HOST_NONE
                                         : cl_op_sem((enum cl_op)o->sync_op)->host;
      if (host == CL_HOST_DEVICE) {
        synced(p, CL_SYNC_DEVICE, 0, dev);
      } else if (host == CL_HOST_STREAM && o->complete) {
        size_t i = streams_lookup(&p->ss, o->has_sync_stream, o->sync_stream,
                                  dev, seq, o->api);
        fit(p);
        synced(p, CL_SYNC_STREAM, i, p->ss.v[i].device);
      }
      continue;
    }
    /* stream work that takes time on its stream: what serializes */
    if (o->op < 0 || !cl_op_is_stream_task((enum cl_op)o->op) || o->result != 0)
      continue;
    size_t i = streams_lookup(&p->ss, o->has_stream, o->stream, dev, seq, o->api);
    fit(p);
    const struct stream *s = &p->ss.v[i];
    int64_t sdev = s->device >= 0 ? s->device : dev;
    if (s->kind == STREAM_LEGACY) {
      struct call_act ca;
      replay_activity(&r, &ca);
      struct lastl *l = &p->last[i];
      *l = (struct lastl){.live = true,
                          .site = sites_of(&p->sites, o->stack, o->pystack),
                          .gpu_ns = ca.gpu_ns, .seq = seq, .stack = o->stack,
                          .kname = o->kname >= 0 ? o->kname : ca.name,
                          .op = o->op, .api = o->api};
      for (size_t j = 0; j < p->ss.n; j++)
        if (j != i && p->pending[j] && p->ss.v[j].device == sdev &&
            blocking_stream(&p->ss.v[j]))
          lose(count_legacy(p, l, sdev), j);
      p->pending[i] = true;
      /* a copy or memset the host knows finished (ops.def section 2), with
       * everything it waited for */
      if ((o->op == CL_OP_COPY || o->op == CL_OP_MEMSET) && o->transfer &&
          cl_host_after((enum cl_op)o->op, replay_copy_rule(&r, &ca)) ==
              CL_HOST_STREAM)
        synced(p, CL_SYNC_STREAM, i, sdev);
      continue;
    }
    if (!blocking_stream(s)) {
      p->pending[i] = true;
      continue;
    }
    for (size_t j = 0; j < p->ss.n; j++)
      if (p->ss.v[j].kind == STREAM_LEGACY && p->ss.v[j].device == sdev &&
          p->last[j].live && p->pending[j])
        lose(count_legacy(p, &p->last[j], sdev), i);
    p->pending[i] = true;
  }
  replay_end(&r);
}

static void report(struct spass *p, struct findings *out)
{
  char b1[32];
  for (size_t gi = 0; gi < p->ng; gi++) {
    const struct sgroup *g = &p->g[gi];
    char names[512] = "";
    size_t len = 0;
    for (size_t k = 0; k < g->nlost && len < sizeof names - 40; k++) {
      const struct stream *s = &p->ss.v[g->lost[k]];
      char h[32];
      size_t ord = stream_ordinal(&p->ss, g->lost[k]);
      if (ord)
        snprintf(h, sizeof h, "%zu", ord);
      else if (s->kind != STREAM_PER_THREAD)
        fmt_hex(h, sizeof h, s->handle);
      bool last = k + 1 == g->nlost && !g->more;
      int n = snprintf(names + len, sizeof names - len, "%s%s",
                       !k ? "" : last ? " and " : ", ",
                       s->kind == STREAM_PER_THREAD ? "per-thread default" : h);
      if (n > 0)
        len += (size_t)n;
    }
    if (g->more && len < sizeof names - 24)
      snprintf(names + len, sizeof names - len, " and %zu more", g->more);
    const struct site *site = &p->sites.v[g->site];
    char timing[64] = "";
    if (g->gpu_ns > 0)
      snprintf(timing, sizeof timing, " (GPU time %s)",
               fmt_ns(b1, sizeof b1, g->gpu_ns));
    struct finding *f = findings_add(
        out, CHECK_DEFAULT_STREAM_SERIALIZATION, &site->loc,
        "%s on the legacy default stream of device %" PRId64 " serializes"
        " with blocking stream%s %s%s",
        g->label, g->device, g->nlost + g->more == 1 ? "" : "s", names,
        timing);
    if (strncmp(g->label, "kernel ", 7) == 0)
      finding_add_kernel(f, g->label + 7);
    f->count = (uint64_t)g->count;
    finding_add_op(f, g->first_seq); /* the first occurrence */
    f->cost_ns = g->gpu_ns;
    finding_set_extra(f, "device", g->device);
    finding_set_extra(f, "streams", (int64_t)(g->nlost + g->more));
    for (size_t k = 0; k < g->nlost && k < 3; k++) {
      const struct stream *s = &p->ss.v[g->lost[k]];
      if (s->created_seq < 0)
        continue;
      int64_t stack, pystack;
      call_stacks(p->ctx->db, s->created_seq, &stack, &pystack);
      char h[32];
      size_t si = sites_of(&p->sites, stack, pystack); /* may move sites.v */
      finding_add_related(f, &p->sites.v[si].loc,
                          "stream %zu (%s) was created here without"
                          " cudaStreamNonBlocking",
                          stream_ordinal(&p->ss, g->lost[k]),
                          fmt_hex(h, sizeof h, s->handle));
    }
    finding_set_fix(f, "create the streams with cudaStreamCreateWithFlags(&s,"
                       " cudaStreamNonBlocking), or give this work a stream of"
                       " its own (or build with --default-stream per-thread)");
  }
}

void analysis_streams(struct report_ctx *ctx, struct findings *out)
{
  struct spass p = {.ctx = ctx};
  streams_load(&p.ss, ctx->db);
  sites_init(&p.sites, ctx->cs);
  fit(&p);
  scan(&p);
  report(&p, out);
  for (size_t i = 0; i < p.ng; i++)
    free(p.g[i].label);
  free(p.g);
  free(p.last);
  free(p.pending);
  sites_free(&p.sites);
  streams_free(&p.ss);
}

/* find_syncs.c - the excess-sync finding (note): one call site whose
 * synchronizations (cudaDeviceSynchronize, cudaStreamSynchronize,
 * cudaEventSynchronize, cuCtxSynchronize and their forms: syncs rows of
 * kind device, context, stream or event; queries do not block) were made
 * at least EXCESS_SYNC_MIN times and kept the host blocked for at least
 * EXCESS_SYNC_SHARE percent of the process's wall time, not counting
 * the longest of those calls.  A single synchronization at the end of a
 * program, however long, is not reported: waiting once for the results is
 * what it is for.  A synchronization that
 * immediately follows an async copy it waits for (the thread's next call)
 * belongs to that copy and is reported as sync-copy by find_transfers.c,
 * not here. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/analyses.h"
#include "checks/find_common.h"
#include "cudalens/format.h"
#include "model/replay.h"
#include "util.h"

#define EXCESS_SYNC_MIN 10
#define EXCESS_SYNC_SHARE 20 /* percent of wall time */

/* the last call of a thread, as far as pairing needs it */
struct last {
  bool async_copy;
  size_t stream; /* the async copy's stream instance */
};

void analysis_syncs(struct report_ctx *ctx, struct findings *out)
{
  int64_t wall = process_wall_ns(ctx);
  if (wall <= 0)
    return;
  struct sites sites;
  struct groups gs;
  struct u64map by_tid;
  struct last *lasts = NULL;
  size_t nlast = 0, caplast = 0;
  sites_init(&sites, ctx->cs);
  groups_init(&gs);
  u64map_init(&by_tid);
  struct streams ss;
  streams_load(&ss, ctx->db);

  struct replay r;
  replay_begin(&r, ctx->db, ctx->act);
  r.no_args = true; /* kernel arguments: not read here */
  while (replay_next(&r)) {
    const struct replay_op *o = &r.op;
    uint64_t li;
    if (!u64map_get(&by_tid, (uint64_t)o->tid, &li)) {
      GROW(lasts, caplast, nlast + 1);
      li = nlast++;
      memset(&lasts[li], 0, sizeof lasts[li]);
      u64map_put(&by_tid, (uint64_t)o->tid, li);
    }
    struct last prev = lasts[li];
    lasts[li].async_copy = o->transfer && !o->is_memset && o->async;
    if (lasts[li].async_copy)
      lasts[li].stream = streams_lookup(&ss, o->has_stream, o->stream,
                                        o->device, o->seq, o->api);

    const char *kind = o->sync_kind;
    if (!kind || strstr(kind, "query"))
      continue;
    if (prev.async_copy && sync_covers(&ss, o, prev.stream))
      continue; /* a blocking copy: sync-copy */
    int64_t ns = sat_sub(o->end_ns, o->start_ns);
    size_t site = sites_of(&sites, o->stack, o->pystack);
    struct group *g = groups_get(&gs, site, 0, o->seq);
    g->count++;
    g->host_ns = sat_add(g->host_ns, ns > 0 ? ns : 0);
    if (ns > g->host2_ns)
      g->host2_ns = ns; /* the longest */
    if (!g->text) {
      char api[96];
      g->text = xstrdup(callsite_user_api(ctx->cs, o->stack, o->api, api,
                                          sizeof api));
    }
  }
  replay_end(&r);

  char b1[32], b2[32], b3[32];
  for (size_t i = 0; i < gs.n; i++) {
    const struct group *g = &gs.v[i];
    if (g->count < EXCESS_SYNC_MIN ||
        sat_mul(g->host_ns - g->host2_ns, 100) <
            sat_mul(EXCESS_SYNC_SHARE, wall))
      continue;
    const struct site *s = &sites.v[g->site];
    int64_t permille = sat_mul(g->host_ns, 1000) / wall;
    struct finding *f = findings_add(
        out, CHECK_EXCESS_SYNC, &s->loc,
        "%s kept the host blocked %s, %" PRId64 ".%" PRId64 "%% of the"
        " process's %s, %s per call",
        g->text, fmt_ns(b1, sizeof b1, g->host_ns), permille / 10,
        permille % 10, fmt_ns(b2, sizeof b2, wall),
        fmt_ns(b3, sizeof b3, g->host_ns / g->count));
    f->count = (uint64_t)g->count;
    finding_add_op(f, g->first_seq); /* the first occurrence */
    f->cost_ns = g->host_ns;
    finding_set_extra(f, "host_ns", g->host_ns);
    finding_set_extra(f, "wall_ns", wall);
    finding_set_extra(f, "share_permille", permille);
    finding_set_fix(f, "synchronize once when the host needs the results"
                       " (after the loop), or wait on an event for just the"
                       " work needed; PyTorch: avoid .item()/.cpu()/print of"
                       " CUDA tensors inside the loop");
  }
  free(lasts);
  u64map_free(&by_tid);
  groups_free(&gs);
  sites_free(&sites);
  streams_free(&ss);
}

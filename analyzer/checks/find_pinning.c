/* find_pinning.c - the repeated-pinning finding (warning): host memory
 * pinned (cudaMallocHost, cudaHostAlloc, cudaHostRegister and their driver
 * forms: memory rows of kind pinned or registered) 10 or more times from
 * one call site, with the host time spent pinning and, for the releases of
 * those blocks (cudaFreeHost, cudaHostUnregister, wherever they are
 * called), unpinning.  A site whose pins all come before the process's
 * first kernel launch, none after a release of one of its blocks, pins a
 * pool once during setup and is not reported; a site that never releases
 * any of its blocks grows a pool or cache (or leaks) and is a note, as is
 * a finding that costs little (finding_cost_severity).  Pinning is a
 * system call that maps and locks pages; done per iteration it often costs
 * more than the copy it was meant to speed up.  PyTorch: pin_memory()
 * inside the loop. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/analyses.h"
#include "checks/find_common.h"
#include "cudalens/format.h"
#include "model/replay.h"
#include "util.h"

#define REPEATED_PINNING_MIN 10

void analysis_pinning(struct report_ctx *ctx, struct findings *out)
{
  struct sites sites;
  struct groups gs;
  struct u64map live; /* address -> group index + 1 (0: released) */
  sites_init(&sites, ctx->cs);
  groups_init(&gs);
  u64map_init(&live);
  /* group.count: pins, count2: releases, dev_a: site of the first
   * release, timed: 1 when the site pinned again after a release */
  struct replay r;
  replay_begin(&r, ctx->db, ctx->act);
  r.no_args = true; /* kernel arguments: not read here */
  while (replay_next(&r)) {
    const struct replay_op *o = &r.op;
    if (!o->mem || !o->mem_addr ||
        (o->mem_kind != CL_MEMKIND_PINNED && o->mem_kind != CL_MEMKIND_REGISTERED))
      continue;
    int64_t seq = o->seq;
    bool is_free = o->mem_free;
    uint64_t addr = o->mem_addr;
    int64_t ns = sat_sub(o->end_ns, o->start_ns);
    if (ns < 0)
      ns = 0;
    size_t site = sites_of(&sites, o->stack, o->pystack);
    char api[96];
    callsite_user_api(ctx->cs, o->stack, o->api, api, sizeof api);
    if (!is_free) {
      struct group *g = groups_get(&gs, site, 0, seq);
      if (g->count2)
        g->timed = 1; /* pinned again after a release: a loop */
      g->count++;
      g->bytes = sat_add(g->bytes, o->mem_size < 0 ? 0 : o->mem_size);
      g->host_ns = sat_add(g->host_ns, ns);
      if (!g->text)
        g->text = xstrdup(api);
      u64map_put(&live, addr, (uint64_t)(g - gs.v) + 1);
      continue;
    }
    uint64_t gi;
    if (!u64map_get(&live, addr, &gi) || gi == 0)
      continue; /* pinned before the recording, or not by a pinning call */
    u64map_put(&live, addr, 0);
    struct group *g = &gs.v[gi - 1];
    g->count2++;
    g->host2_ns = sat_add(g->host2_ns, ns);
    if (g->dev_a < 0) {
      g->dev_a = (int64_t)site;
      g->dev_b = seq;
    }
  }
  replay_end(&r);

  char b1[32], b2[32], b3[32];
  int64_t wall = process_wall_ns(ctx), first_kernel = first_kernel_seq(ctx);
  for (size_t i = 0; i < gs.n; i++) {
    const struct group *g = &gs.v[i];
    if (g->count < REPEATED_PINNING_MIN)
      continue;
    /* a pool pinned once during setup is what the fix asks for */
    if (!g->timed && first_kernel != INT64_MAX && g->last_seq < first_kernel)
      continue;
    const struct site *s = &sites.v[g->site];
    char rel[96] = "";
    if (g->count2)
      snprintf(rel, sizeof rel, " + %s unpinning",
               fmt_ns(b3, sizeof b3, g->host2_ns));
    /* none of its blocks released: a pool or cache that grows (PyTorch's
     * pinned-memory caching allocator behind DataLoader(pin_memory=True)),
     * each block paid once; or a leak */
    int grows = g->count2 == 0;
    struct finding *f = findings_add(
        out, CHECK_REPEATED_PINNING, &s->loc,
        grows ? "%s pins host memory again and again and releases none of"
                " it: %s in all, host time %s pinning (a pool or cache that"
                " grows, or a leak)%s"
              : "%s pins host memory in a loop: %s in all, host time %s"
                " pinning%s",
        g->text, fmt_bytes(b1, sizeof b1, g->bytes),
        fmt_ns(b2, sizeof b2, g->host_ns), rel);
    f->count = (uint64_t)g->count;
    finding_add_op(f, g->first_seq); /* the first occurrence */
    f->cost_ns = sat_add(g->host_ns, g->host2_ns);
    finding_set_extra(f, "bytes", g->bytes);
    finding_set_extra(f, "pin_ns", g->host_ns);
    finding_set_extra(f, "unpin_ns", g->host2_ns);
    finding_set_extra(f, "releases", g->count2);
    if (g->dev_a >= 0 && g->count2 == g->count)
      finding_add_related(f, &sites.v[g->dev_a].loc,
                          "the pinned memory is released here");
    else if (g->dev_a >= 0)
      finding_add_related(f, &sites.v[g->dev_a].loc,
                          "the pinned memory is released here (%" PRId64
                          " of the %" PRId64 " blocks)", g->count2, g->count);
    finding_cost_severity(f, wall, 0);
    if (grows)
      finding_lower_severity(f, SEV_NOTE);
    finding_set_fix(f, "pin once: allocate (or register) the buffer before"
                       " the loop and reuse it; PyTorch: keep one pinned"
                       " tensor and copy_() into it, or DataLoader("
                       "pin_memory=True)");
  }
  u64map_free(&live);
  groups_free(&gs);
  sites_free(&sites);
}

/* find_common.c - the helpers of find_common.h: call sites deduplicated by
 * their resolved location, per-site groups, wall time, API names, and the
 * direction and host memory kind of a copy (the same rules as the summary's
 * copy table, so findings and summary agree). */
#include "checks/find_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalens/format.h"
#include "cudalens/semantics.h"
#include "model/calls.h"
#include "model/replay.h"
#include "sites/callsite.h"
#include "util.h"

void sites_init(struct sites *s, struct callsites *cs)
{
  memset(s, 0, sizeof *s);
  s->cs = cs;
  u64map_init(&s->by_stack);
}

void sites_free(struct sites *s)
{
  for (size_t i = 0; i < s->n; i++)
    free(s->v[i].key);
  free(s->v);
  u64map_free(&s->by_stack);
  memset(s, 0, sizeof *s);
}

static char *site_key(const struct location *l)
{
  if (l->file)
    return xasprintf("%s:%d:%s", l->file, l->line,
                     l->function ? l->function : "");
  if (l->module)
    return xasprintf("%s+0x%" PRIx64, l->module, l->offset);
  if (l->function)
    return xasprintf("?:%s", l->function);
  return xstrdup("");
}

size_t sites_of(struct sites *s, int64_t stack, int64_t pystack)
{
  /* ids are small positive integers; NULL (-1) maps to 0 */
  uint64_t ck = (stack < 0 ? 0 : (uint64_t)stack + 1) << 32 |
                (pystack < 0 ? 0 : (uint64_t)pystack + 1);
  uint64_t idx;
  if (u64map_get(&s->by_stack, ck, &idx))
    return (size_t)idx;
  struct location loc = {0};
  struct callsite c;
  if (s->cs && callsite_resolve_ids(s->cs, stack, pystack, &c) == 0)
    loc = callsite_location(&c);
  char *key = site_key(&loc);
  size_t i;
  for (i = 0; i < s->n; i++)
    if (strcmp(s->v[i].key, key) == 0)
      break;
  if (i < s->n) {
    free(key);
  } else {
    GROW(s->v, s->cap, s->n + 1);
    s->v[i].key = key;
    s->v[i].loc = loc;
    s->n++;
  }
  u64map_put(&s->by_stack, ck, i);
  return i;
}

void groups_init(struct groups *g)
{
  memset(g, 0, sizeof *g);
  u64map_init(&g->idx);
}

void groups_free(struct groups *g)
{
  for (size_t i = 0; i < g->n; i++)
    free(g->v[i].text);
  free(g->v);
  u64map_free(&g->idx);
  memset(g, 0, sizeof *g);
}

struct group *groups_get(struct groups *g, size_t site, uint32_t tag,
                         int64_t seq)
{
  uint64_t key = (uint64_t)site << 32 | tag, i;
  if (u64map_get(&g->idx, key, &i)) {
    if (seq > g->v[i].last_seq)
      g->v[i].last_seq = seq;
    return &g->v[i];
  }
  GROW(g->v, g->cap, g->n + 1);
  struct group *x = &g->v[g->n];
  memset(x, 0, sizeof *x);
  x->site = site;
  x->tag = tag;
  x->first_seq = x->last_seq = seq;
  x->dir = -1;
  x->dev_a = x->dev_b = -1;
  u64map_put(&g->idx, key, g->n);
  return &g->v[g->n++];
}

int64_t process_wall_ns(struct report_ctx *ctx)
{
  int64_t lo = ctx->sum->proc.start_ns, hi = -1;
  const struct calls_facts *f = calls_facts(ctx->db);
  if (f->has_start) {
    hi = f->has_end ? f->max_end : 0;
    if (lo < 0 || f->min_start < lo)
      lo = f->min_start;
  }
  return lo >= 0 && hi > lo ? hi - lo : 0;
}

int64_t first_kernel_seq(struct report_ctx *ctx)
{
  return calls_facts(ctx->db)->first_kernel;
}

const char *stream_brief(char *buf, size_t len, const char *name)
{
  /* after an NVTX name in quotes, which may hold " (" itself */
  const char *quote = strrchr(name, '"');
  const char *paren = strstr(quote ? quote : name, " (");
  size_t n = paren ? (size_t)(paren - name) : strlen(name);
  if (n >= len)
    n = len - 1;
  memcpy(buf, name, n);
  buf[n] = 0;
  return buf;
}

double gbps(int64_t bytes, int64_t ns)
{
  return bytes > 0 && ns > 0 ? (double)bytes / (double)ns : 0.0;
}

bool sync_covers(struct streams *ss, const struct replay_op *o, size_t copy)
{
  int op = o->sync_op;
  if (op < 0 || op == CL_OP_QUERY_STREAM || op == CL_OP_QUERY_EVENT)
    return false;
  struct cl_sync s;
  if (!cl_sync_kind_of(cl_op_sem((enum cl_op)op)->host, &s.kind) ||
      s.kind == CL_SYNC_EVENT)
    return false; /* an event's stream is not known here */
  int64_t dev = o->device;
  size_t i = copy;
  s.on = CL_SC_ANY;
  if (s.kind == CL_SYNC_STREAM) {
    i = streams_lookup(ss, o->has_sync_stream, o->sync_stream, o->device,
                       o->seq, o->api);
    s.on = stream_class(&ss->v[i]);
    dev = ss->v[i].device;
  }
  const struct stream *c = &ss->v[copy];
  struct cl_prior p = {stream_class(c), s.kind == CL_SYNC_STREAM && i == copy,
                       dev < 0 || c->device < 0 || c->device == dev};
  return cl_sync_covers(&s, &p) != CL_COVER_NONE;
}


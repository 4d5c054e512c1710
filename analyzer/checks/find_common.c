/* find_common.c - the helpers of find_common.h: call sites deduplicated by
 * their resolved location, per-site groups, wall time, API names, and the
 * direction and host memory kind of a copy (the same rules as the summary's
 * copy table, so findings and summary agree). */
#include "find_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callsite.h"
#include "cudalens/format.h"
#include "cudalens/semantics.h"
#include "replay.h"
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
  const struct calls_facts *f = replay_calls_facts(ctx->db);
  if (f) {
    if (f->has_start) {
      hi = f->has_end ? f->max_end : 0;
      if (lo < 0 || f->min_start < lo)
        lo = f->min_start;
    }
    return lo >= 0 && hi > lo ? hi - lo : 0;
  }
  sqlite3_stmt *st =
      db_prepare(ctx->db, "SELECT min(start_ns), max(end_ns) FROM calls");
  if (db_step(ctx->db, st) && !db_null(st, 0)) {
    int64_t a = db_int(st, 0);
    hi = db_int(st, 1);
    if (lo < 0 || a < lo)
      lo = a;
  }
  db_finalize(st);
  return lo >= 0 && hi > lo ? hi - lo : 0;
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

int64_t first_kernel_seq(struct report_ctx *ctx)
{
  int64_t first = INT64_MAX;
  const struct calls_facts *f = replay_calls_facts(ctx->db);
  if (f)
    return f->first_kernel;
  sqlite3_stmt *st = db_prepare(
      ctx->db, "SELECT min(c.seq) FROM calls c JOIN api a ON a.id = c.api"
               " WHERE a.op IN ('kernel', 'graph-launch') AND c.result = 0");
  if (db_step(ctx->db, st) && !db_null(st, 0))
    first = db_int(st, 0);
  db_finalize(st);
  return first;
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

void call_stacks(struct cl_db *d, int64_t seq, int64_t *stack,
                 int64_t *pystack)
{
  *stack = *pystack = -1;
  sqlite3_stmt *st =
      db_prepare(d, "SELECT stack, pystack FROM calls WHERE seq=?1");
  sqlite3_bind_int64(st, 1, seq);
  if (db_step(d, st)) {
    if (!db_null(st, 0))
      *stack = db_int(st, 0);
    if (!db_null(st, 1))
      *pystack = db_int(st, 1);
  }
  db_finalize(st);
}

static bool legacy_handle(int64_t h)
{
  return h == 0 || h == (int64_t)CL_STREAM_LEGACY;
}

bool sync_covers(int sync_op, bool has_sync_stream, int64_t sync_stream,
                 bool has_copy_stream, int64_t copy_stream)
{
  if (sync_op < 0 || sync_op == CL_OP_QUERY_STREAM || sync_op == CL_OP_QUERY_EVENT)
    return false;
  const struct cl_op_sem *sem = cl_op_sem((enum cl_op)sync_op);
  if (sem->host == CL_HOST_DEVICE)
    return true;
  if (sem->host != CL_HOST_STREAM)
    return false;
  int64_t a = has_sync_stream ? sync_stream : 0;
  int64_t b = has_copy_stream ? copy_stream : 0;
  if (legacy_handle(a) && legacy_handle(b))
    return true;
  return a == b;
}

/* ` "NAME"` when the stream has an NVTX name, else "" (malloc'd) */
static char *quoted_name(const struct stream *st)
{
  return st->name ? xasprintf(" \"%s\"", st->name) : xstrdup("");
}

char *stream_title(struct report_ctx *ctx, const struct streams *s, size_t i)
{
  const struct stream *st = &s->v[i];
  char b[32];
  char *name = quoted_name(st), *t = NULL;
  switch (st->kind) {
  case STREAM_LEGACY:
    t = st->device >= 0
            ? xasprintf("the legacy default stream%s (device %" PRId64 ")",
                        name, st->device)
            : xasprintf("the legacy default stream%s", name);
    break;
  case STREAM_PER_THREAD:
    t = xasprintf("the per-thread default stream%s", name);
    break;
  case STREAM_UNKNOWN:
    t = st->name ? xasprintf("stream%s (%s, created before recording)", name,
                             fmt_hex(b, sizeof b, st->handle))
                 : xasprintf("stream %s (created before recording)",
                             fmt_hex(b, sizeof b, st->handle));
    break;
  default:
    break;
  }
  if (t) {
    free(name);
    return t;
  }
  const char *blocking = stream_blocking(st) ? "blocking" : "non-blocking";
  int64_t stack, pystack;
  call_stacks(ctx->db, st->created_seq, &stack, &pystack);
  struct callsite site;
  struct location loc = {0};
  if (callsite_resolve_ids(ctx->cs, stack, pystack, &site) == 0)
    loc = callsite_location(&site);
  /* named: stream "NAME" (2, non-blocking, ...); else stream 2 (...) */
  char *who = st->name ? xasprintf("%s (%zu, ", name, stream_ordinal(s, i))
                       : xasprintf(" %zu (", stream_ordinal(s, i));
  if (loc.file)
    t = xasprintf("stream%s%s, created at %s:%d)", who, blocking,
                  path_base(loc.file), loc.line);
  else
    t = xasprintf("stream%s%s, created by call %" PRId64 ")", who, blocking,
                  st->created_seq);
  free(who);
  free(name);
  return t;
}

char *thread_title(struct cl_db *db, int64_t tid)
{
  char *t = NULL;
  if (db_has_table(db, "names")) {
    sqlite3_stmt *st = db_prepare(
        db, "SELECT name FROM names WHERE kind = 'thread' AND handle = ?1"
            " AND name IS NOT NULL AND name != '' ORDER BY seq DESC LIMIT 1");
    sqlite3_bind_int64(st, 1, tid);
    if (db_step(db, st))
      t = xasprintf("thread %" PRId64 " \"%s\"", tid, db_text(st, 0));
    db_finalize(st);
    if (t)
      return t;
  }
  sqlite3_stmt *st = db_prepare(db, "SELECT name FROM threads WHERE tid=?1");
  sqlite3_bind_int64(st, 1, tid);
  const char *name = db_step(db, st) ? db_text(st, 0) : NULL;
  t = name && *name ? xasprintf("thread %" PRId64 " (%s)", tid, name)
                    : xasprintf("thread %" PRId64, tid);
  db_finalize(st);
  return t;
}

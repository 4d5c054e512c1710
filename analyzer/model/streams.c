/* streams.c - stream instances and the lookup from a call's stream handle
 * to its instance. */
#include "model/streams.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cudalens/format.h"
#include "sites/callsite.h"
#include "util.h"

static void set_name(char **slot, const char *name)
{
  free(*slot);
  *slot = xstrdup(name);
}

/* the created instance holding HANDLE at SEQ (the latest creation at or
 * before it), or s->n */
static size_t created_at(const struct streams *s, int64_t handle, int64_t seq)
{
  size_t best = s->n;
  for (size_t i = 0; i < s->n; i++) {
    const struct stream *x = &s->v[i];
    if (x->kind == STREAM_CREATED && x->handle == handle &&
        x->created_seq <= seq &&
        (best == s->n || x->created_seq > s->v[best].created_seq))
      best = i;
  }
  return best;
}

/* the names the program gave streams through NVTX (schema 3), the latest
 * winning: onto the created instance that held the handle then, else kept
 * for the instances lookups create */
static void load_names(struct streams *s, struct cl_db *d)
{
  if (!db_has_table(d, "names"))
    return;
  sqlite3_stmt *st = db_prepare(
      d, "SELECT seq, handle, name FROM names WHERE kind = 'stream'"
         " AND name IS NOT NULL AND name != '' ORDER BY seq");
  while (db_step(d, st)) {
    int64_t seq = db_int(st, 0), handle = db_int(st, 1);
    const char *name = db_text(st, 2);
    if (handle == (int64_t)CL_STREAM_LEGACY)
      handle = 0;
    size_t i = handle == 0 || handle == (int64_t)CL_STREAM_PER_THREAD
                   ? s->n
                   : created_at(s, handle, seq);
    if (i < s->n) {
      set_name(&s->v[i].name, name);
      continue;
    }
    size_t k = 0;
    while (k < s->nnames && s->names[k].handle != handle)
      k++;
    if (k == s->nnames) {
      GROW(s->names, s->capnames, s->nnames + 1);
      s->names[s->nnames++] = (struct stream_name){handle, NULL};
    }
    set_name(&s->names[k].name, name);
  }
  db_finalize(st);
}

void streams_load(struct streams *s, struct cl_db *d)
{
  memset(s, 0, sizeof *s);
  sqlite3_stmt *st = db_prepare(
      d, "SELECT seq, handle, device, flags, priority, destroyed_seq"
         " FROM streams ORDER BY seq");
  while (db_step(d, st)) {
    GROW(s->v, s->cap, s->n + 1);
    struct stream *x = &s->v[s->n++];
    x->kind = STREAM_CREATED;
    x->created_seq = db_int(st, 0);
    x->handle = db_int(st, 1);
    x->device = db_null(st, 2) ? -1 : db_int(st, 2);
    x->flags = db_null(st, 3) ? -1 : db_int(st, 3);
    x->priority = db_int(st, 4);
    x->destroyed_seq = db_null(st, 5) ? -1 : db_int(st, 5);
  }
  db_finalize(st);
  load_names(s, d);
}

void streams_free(struct streams *s)
{
  for (size_t i = 0; i < s->n; i++)
    free(s->v[i].name);
  for (size_t i = 0; i < s->nnames; i++)
    free(s->names[i].name);
  free(s->v);
  free(s->names);
  memset(s, 0, sizeof *s);
}

static size_t add(struct streams *s, enum stream_kind kind, int64_t handle,
                  int64_t device)
{
  GROW(s->v, s->cap, s->n + 1);
  struct stream *x = &s->v[s->n];
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->handle = handle;
  x->device = device;
  x->flags = kind == STREAM_UNKNOWN ? -1 : 0;
  x->created_seq = x->destroyed_seq = -1;
  for (size_t k = 0; k < s->nnames; k++)
    if (s->names[k].handle == (kind == STREAM_LEGACY ? 0 : handle))
      x->name = xstrdup(s->names[k].name);
  return s->n++;
}

static bool is_ptsz(const char *api)
{
  return api && (strstr(api, "_ptsz") || strstr(api, "_ptds"));
}

size_t streams_lookup(struct streams *s, bool has_handle, int64_t handle,
                      int64_t device, int64_t seq, const char *api_name)
{
  enum stream_kind kind;
  if (!has_handle)
    kind = is_ptsz(api_name) ? STREAM_PER_THREAD : STREAM_LEGACY;
  else if (handle == 0 || handle == (int64_t)CL_STREAM_LEGACY)
    kind = STREAM_LEGACY;
  else if (handle == (int64_t)CL_STREAM_PER_THREAD)
    kind = STREAM_PER_THREAD;
  else
    kind = STREAM_CREATED;

  if (kind != STREAM_CREATED) {
    for (size_t i = 0; i < s->n; i++)
      if (s->v[i].kind == kind && s->v[i].device == device)
        return i;
    return add(s, kind, kind == STREAM_LEGACY ? 0 : (int64_t)CL_STREAM_PER_THREAD,
               device);
  }
  /* the latest creation of this handle at or before SEQ */
  size_t best = created_at(s, handle, seq);
  if (best < s->n) {
    if (s->v[best].device < 0)
      s->v[best].device = device; /* not recorded at creation */
    return best;
  }
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i].kind == STREAM_UNKNOWN && s->v[i].handle == handle)
      return i;
  return add(s, STREAM_UNKNOWN, handle, device);
}

bool stream_blocking(const struct stream *st)
{
  return st->flags < 0 || !(st->flags & 1);
}

enum cl_stream_class stream_class(const struct stream *st)
{
  switch (st->kind) {
  case STREAM_LEGACY: return CL_SC_LEGACY;
  case STREAM_PER_THREAD: return CL_SC_PER_THREAD;
  case STREAM_CREATED:
    if (st->flags >= 0)
      return st->flags & 1 ? CL_SC_NONBLOCKING : CL_SC_BLOCKING;
    return CL_SC_UNKNOWN;
  default: return CL_SC_UNKNOWN;
  }
}

const char *stream_kind_name(enum stream_kind k)
{
  switch (k) {
  case STREAM_LEGACY: return "legacy-default";
  case STREAM_PER_THREAD: return "per-thread-default";
  case STREAM_CREATED: return "created";
  default: return "unknown";
  }
}

static const struct streams *sort_streams;

static int cmp_order(const void *pa, const void *pb)
{
  const struct stream *a = &sort_streams->v[*(const size_t *)pa];
  const struct stream *b = &sort_streams->v[*(const size_t *)pb];
  /* unknown devices (-1) last */
  uint64_t da = (uint64_t)a->device, db = (uint64_t)b->device;
  if (da != db)
    return da < db ? -1 : 1;
  if (a->kind != b->kind)
    return a->kind < b->kind ? -1 : 1;
  if (a->created_seq != b->created_seq)
    return a->created_seq < b->created_seq ? -1 : 1;
  if (a->handle != b->handle)
    return (uint64_t)a->handle < (uint64_t)b->handle ? -1 : 1;
  return 0;
}

size_t *streams_order(const struct streams *s)
{
  size_t *o = xcalloc(s->n, sizeof *o);
  for (size_t i = 0; i < s->n; i++)
    o[i] = i;
  sort_streams = s;
  qsort(o, s->n, sizeof *o, cmp_order);
  sort_streams = NULL;
  return o;
}

size_t stream_ordinal(const struct streams *s, size_t i)
{
  const struct stream *x = &s->v[i];
  if (x->kind != STREAM_CREATED || x->created_seq < 0)
    return 0;
  size_t n = 1;
  for (size_t j = 0; j < s->n; j++) {
    const struct stream *y = &s->v[j];
    if (y->kind == STREAM_CREATED && y->created_seq >= 0 &&
        (y->created_seq < x->created_seq ||
         (y->created_seq == x->created_seq && j < i)))
      n++;
  }
  return n;
}

/* ` "NAME"` when the stream has an NVTX name, else "" (malloc'd) */
static char *quoted_name(const struct stream *st)
{
  return st->name ? xasprintf(" \"%s\"", st->name) : xstrdup("");
}

char *stream_title(struct cl_db *db, struct callsites *cs,
                   const struct streams *s, size_t i)
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
  call_stacks(db, st->created_seq, &stack, &pystack);
  struct callsite site;
  struct location loc = {0};
  if (callsite_resolve_ids(cs, stack, pystack, &site) == 0)
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

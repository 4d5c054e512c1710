/* hb_engine.c - vector clocks, event clocks and the shadow memory of the
 * happens-before engine (see hb_engine.h).  Clocks are arrays of uint32
 * indexed by stream id, grown on demand (missing entries are 0).  All
 * state is kept in arrays in creation order, so a run is deterministic. */
#include "checks/hb_engine.h"

#include <stdlib.h>
#include <string.h>

#include "cudalens/semantics.h"
#include "u64map.h"
#include "util.h"

struct vc {
  uint32_t *v;
  uint32_t n;
};

struct hstream {
  int64_t device;
  unsigned flags;
  struct vc c[HB_MODELS];
};

struct hthread {
  struct vc c[HB_MODELS];
  uint32_t host_stream; /* +1; 0 until the thread touches memory itself */
};

struct hevent {
  bool recorded;
  struct vc c[HB_MODELS];
};

#define MAX_READS 16 /* reads kept per key: one per stream, oldest dropped */

struct shentry {
  uint64_t lo, hi;
  bool point;
  bool has_write;
  struct hb_access w;
  struct hb_access reads[MAX_READS];
  unsigned nreads;
};

struct bucket {
  struct shentry *v;
  size_t n, cap;
  struct u64map points; /* pointer -> entry index */
  size_t *ranges;       /* entry indices of ranges */
  size_t nranges, capranges;
};

struct hb_engine {
  struct hstream *streams;
  size_t nstreams, capstreams;
  struct hthread *threads;
  size_t nthreads, capthreads;
  struct hevent *events;
  size_t nevents, capevents;
  struct u64map event_index;  /* caller's key -> events index */
  struct bucket *buckets;
  size_t nbuckets, capbuckets;
  struct u64map bucket_index; /* caller's key -> buckets index */
  struct vc (*barriers)[HB_MODELS]; /* per device: hb_device_barrier */
  size_t nbarriers;
  /* the coverage rule (ops.def section 3b, cl_sync_covers) for another
   * stream of the same device, by sync kind, class synchronized and class
   * of the other stream, read once; REACH: does a sync of that kind and
   * class cover any other stream at all */
  uint8_t cover[CL_SYNC_ISSUE + 1][CL_SC_ANY][CL_SC_ANY];
  bool reach[CL_SYNC_ISSUE + 1][CL_SC_ANY];
};

/* ---- vector clocks ------------------------------------------------------ */

static void vc_reserve(struct vc *c, uint32_t n)
{
  if (c->n >= n)
    return;
  c->v = xrealloc(c->v, n * sizeof *c->v);
  memset(c->v + c->n, 0, (n - c->n) * sizeof *c->v);
  c->n = n;
}

static void vc_join(struct vc *dst, const struct vc *src)
{
  if (src->n > dst->n)
    vc_reserve(dst, src->n);
  for (uint32_t i = 0; i < src->n; i++)
    if (src->v[i] > dst->v[i])
      dst->v[i] = src->v[i];
}

static void vc_copy(struct vc *dst, const struct vc *src)
{
  vc_reserve(dst, src->n);
  if (src->n) /* both may still be empty: memcpy wants pointers */
    memcpy(dst->v, src->v, src->n * sizeof *src->v);
  if (dst->n > src->n)
    memset(dst->v + src->n, 0, (dst->n - src->n) * sizeof *dst->v);
}

static uint32_t vc_get(const struct vc *c, uint32_t i)
{
  return i < c->n ? c->v[i] : 0;
}

static bool in_model(unsigned m, enum hb_edge edge)
{
  return (m & (unsigned)edge) == 0;
}

/* The class of an engine stream for the coverage rule: graph lanes and
 * host pseudo-streams (no flag) synchronize with nothing implicitly, as
 * non-blocking streams; find_races.c gives the per-thread stream and
 * streams of unknown flags HB_STREAM_BLOCKING, for which the rule answers
 * as for blocking streams. */
static enum cl_stream_class sclass(unsigned flags)
{
  if (flags & HB_STREAM_LEGACY)
    return CL_SC_LEGACY;
  if (flags & HB_STREAM_BLOCKING)
    return CL_SC_BLOCKING;
  return CL_SC_NONBLOCKING;
}

/* does an edge that covers by C, of class EDGE, exist in model M? */
static bool cover_in_model(unsigned m, enum cl_cover c, enum hb_edge edge)
{
  if (c == CL_COVER_LEGACY)
    return in_model(m, edge) && in_model(m, HB_EDGE_LEGACY);
  return c == CL_COVER_DIRECT && in_model(m, edge);
}

/* how a sync of KIND (STREAM or ISSUE) of stream S covers stream B's work
 * (B may be S) */
static enum cl_cover covers(const struct hb_engine *e, enum cl_sync_kind kind,
                            uint32_t s, uint32_t b)
{
  const struct hstream *x = &e->streams[s], *y = &e->streams[b];
  if (s == b) {
    struct cl_sync sync = {kind, sclass(x->flags)};
    struct cl_prior p = {sclass(y->flags), s == b, true};
    return cl_sync_covers(&sync, &p);
  }
  return x->device == y->device
             ? (enum cl_cover)e->cover[kind][sclass(x->flags)][sclass(y->flags)]
             : CL_COVER_NONE;
}

/* DST (a clock per model) joins the clocks of the streams other than
 * STREAM that a sync of KIND of STREAM covers, as edges of class EDGE */
static void join_covered(struct hb_engine *e, enum cl_sync_kind kind,
                         uint32_t stream, enum hb_edge edge,
                         struct vc dst[HB_MODELS])
{
  if (!e->reach[kind][sclass(e->streams[stream].flags)])
    return;
  for (size_t i = 0; i < e->nstreams; i++) {
    if (i == stream)
      continue;
    enum cl_cover c = covers(e, kind, stream, (uint32_t)i);
    for (unsigned m = 0; c != CL_COVER_NONE && m < HB_MODELS; m++)
      if (cover_in_model(m, c, edge))
        vc_join(&dst[m], &e->streams[i].c[m]);
  }
}

/* ---- engine ------------------------------------------------------------- */

struct hb_engine *hb_new(void)
{
  struct hb_engine *e = xcalloc(1, sizeof *e);
  u64map_init(&e->event_index);
  u64map_init(&e->bucket_index);
  for (int k = 0; k <= CL_SYNC_ISSUE; k++)
    for (int on = 0; on < CL_SC_ANY; on++)
      for (int w = 0; w < CL_SC_ANY; w++) {
        struct cl_sync sync = {(enum cl_sync_kind)k, (enum cl_stream_class)on};
        struct cl_prior p = {(enum cl_stream_class)w, false, true};
        e->cover[k][on][w] = (uint8_t)cl_sync_covers(&sync, &p);
        e->reach[k][on] |= e->cover[k][on][w] != CL_COVER_NONE;
      }
  return e;
}

static void free_bucket(struct bucket *b)
{
  free(b->v);
  free(b->ranges);
  u64map_free(&b->points);
  memset(b, 0, sizeof *b);
}

void hb_free(struct hb_engine *e)
{
  if (!e)
    return;
  for (size_t i = 0; i < e->nstreams; i++)
    for (int m = 0; m < HB_MODELS; m++)
      free(e->streams[i].c[m].v);
  for (size_t i = 0; i < e->nthreads; i++)
    for (int m = 0; m < HB_MODELS; m++)
      free(e->threads[i].c[m].v);
  for (size_t i = 0; i < e->nevents; i++)
    for (int m = 0; m < HB_MODELS; m++)
      free(e->events[i].c[m].v);
  for (size_t i = 0; i < e->nbuckets; i++)
    free_bucket(&e->buckets[i]);
  free(e->streams);
  free(e->threads);
  free(e->events);
  free(e->buckets);
  for (size_t i = 0; i < e->nbarriers; i++)
    for (int m = 0; m < HB_MODELS; m++)
      free(e->barriers[i][m].v);
  free(e->barriers);
  u64map_free(&e->event_index);
  u64map_free(&e->bucket_index);
  free(e);
}

uint32_t hb_new_stream(struct hb_engine *e, int64_t device, unsigned flags)
{
  GROW(e->streams, e->capstreams, e->nstreams + 1);
  struct hstream *s = &e->streams[e->nstreams];
  memset(s, 0, sizeof *s);
  s->device = device;
  s->flags = flags;
  return (uint32_t)e->nstreams++;
}

uint32_t hb_new_thread(struct hb_engine *e)
{
  GROW(e->threads, e->capthreads, e->nthreads + 1);
  memset(&e->threads[e->nthreads], 0, sizeof e->threads[0]);
  return (uint32_t)e->nthreads++;
}

size_t hb_nstreams(const struct hb_engine *e)
{
  return e->nstreams;
}

uint32_t hb_host_issue(struct hb_engine *e, uint32_t thread, uint32_t *stream)
{
  if (!e->threads[thread].host_stream) {
    uint32_t h = hb_new_stream(e, -2, HB_STREAM_HOST);
    e->threads[thread].host_stream = h + 1;
  }
  uint32_t h = e->threads[thread].host_stream - 1;
  struct hstream *s = &e->streams[h];
  struct hthread *t = &e->threads[thread];
  uint32_t epoch = vc_get(&s->c[0], h) + 1;
  for (unsigned m = 0; m < HB_MODELS; m++) {
    vc_copy(&s->c[m], &t->c[m]);
    vc_reserve(&s->c[m], h + 1);
    s->c[m].v[h] = epoch;
    vc_reserve(&t->c[m], h + 1);
    t->c[m].v[h] = epoch; /* program order: the thread knows it is done */
  }
  *stream = h;
  return epoch;
}

uint32_t hb_issue(struct hb_engine *e, uint32_t thread, uint32_t stream)
{
  struct hstream *s = &e->streams[stream];
  struct hthread *t = &e->threads[thread];
  for (unsigned m = 0; m < HB_MODELS; m++)
    vc_join(&s->c[m], &t->c[m]);
  if (s->device >= 0 && (size_t)s->device < e->nbarriers)
    for (unsigned m = 0; m < HB_MODELS; m++)
      vc_join(&s->c[m], &e->barriers[s->device][m]);
  /* what the operation waits for on other streams (ops.def section 3b,
   * ISSUE: the legacy stream waits for the blocking streams of its device,
   * and they wait for it) */
  join_covered(e, CL_SYNC_ISSUE, stream, HB_EDGE_ALWAYS, s->c);
  uint32_t epoch = vc_get(&s->c[0], stream) + 1;
  for (unsigned m = 0; m < HB_MODELS; m++) {
    vc_reserve(&s->c[m], stream + 1);
    s->c[m].v[stream] = epoch;
  }
  return epoch;
}

uint32_t hb_lane_issue(struct hb_engine *e, uint32_t lane, uint32_t base,
                       const uint32_t *preds, size_t npreds)
{
  struct hstream *l = &e->streams[lane];
  for (unsigned m = 0; m < HB_MODELS; m++) {
    vc_join(&l->c[m], &e->streams[base].c[m]);
    for (size_t i = 0; i < npreds; i++)
      if (preds[i] != lane)
        vc_join(&l->c[m], &e->streams[preds[i]].c[m]);
  }
  uint32_t epoch = vc_get(&l->c[0], lane) + 1;
  for (unsigned m = 0; m < HB_MODELS; m++) {
    vc_reserve(&l->c[m], lane + 1);
    l->c[m].v[lane] = epoch;
  }
  return epoch;
}

void hb_stream_join(struct hb_engine *e, uint32_t dst, uint32_t src)
{
  if (dst == src)
    return;
  for (unsigned m = 0; m < HB_MODELS; m++)
    vc_join(&e->streams[dst].c[m], &e->streams[src].c[m]);
}

void hb_stream_wait_device(struct hb_engine *e, uint32_t stream,
                           int64_t device)
{
  for (size_t i = 0; i < e->nstreams; i++)
    if (i != stream && e->streams[i].device == device)
      for (unsigned m = 0; m < HB_MODELS; m++)
        vc_join(&e->streams[stream].c[m], &e->streams[i].c[m]);
}

void hb_device_barrier(struct hb_engine *e, int64_t device, uint32_t stream)
{
  if (device < 0 || device > 4096)
    return;
  if ((size_t)device >= e->nbarriers) {
    size_t n = (size_t)device + 1;
    e->barriers = xrealloc(e->barriers, n * sizeof *e->barriers);
    memset(e->barriers + e->nbarriers, 0,
           (n - e->nbarriers) * sizeof *e->barriers);
    e->nbarriers = n;
  }
  for (unsigned m = 0; m < HB_MODELS; m++)
    vc_join(&e->barriers[device][m], &e->streams[stream].c[m]);
}

static struct hevent *event_get(struct hb_engine *e, uint64_t key, bool create)
{
  uint64_t i;
  if (u64map_get(&e->event_index, key, &i))
    return &e->events[i];
  if (!create)
    return NULL;
  GROW(e->events, e->capevents, e->nevents + 1);
  memset(&e->events[e->nevents], 0, sizeof e->events[0]);
  u64map_put(&e->event_index, key, e->nevents);
  return &e->events[e->nevents++];
}

void hb_event_record(struct hb_engine *e, uint64_t event, uint32_t stream)
{
  struct hevent *ev = event_get(e, event, true);
  for (unsigned m = 0; m < HB_MODELS; m++)
    vc_copy(&ev->c[m], &e->streams[stream].c[m]);
  ev->recorded = true;
}

void hb_stream_wait_event(struct hb_engine *e, uint32_t stream, uint64_t event)
{
  struct hevent *ev = event_get(e, event, false);
  if (!ev || !ev->recorded)
    return;
  for (unsigned m = 0; m < HB_MODELS; m++)
    vc_join(&e->streams[stream].c[m], &ev->c[m]);
}

void hb_event_reset(struct hb_engine *e, uint64_t event)
{
  struct hevent *ev = event_get(e, event, false);
  if (ev)
    ev->recorded = false;
}

void hb_host_wait_stream(struct hb_engine *e, uint32_t thread,
                         uint32_t stream, enum hb_edge edge)
{
  /* what a stream synchronization covers: ops.def section 3b, STREAM */
  struct hthread *t = &e->threads[thread];
  const struct hstream *s = &e->streams[stream];
  enum cl_cover self = covers(e, CL_SYNC_STREAM, stream, stream);
  for (unsigned m = 0; m < HB_MODELS; m++)
    if (cover_in_model(m, self, edge))
      vc_join(&t->c[m], &s->c[m]);
  join_covered(e, CL_SYNC_STREAM, stream, edge, t->c);
}

void hb_host_wait_event(struct hb_engine *e, uint32_t thread, uint64_t event)
{
  struct hevent *ev = event_get(e, event, false);
  if (!ev || !ev->recorded)
    return;
  for (unsigned m = 0; m < HB_MODELS; m++)
    vc_join(&e->threads[thread].c[m], &ev->c[m]);
}

void hb_host_wait_device(struct hb_engine *e, uint32_t thread, int64_t device,
                         enum hb_edge edge)
{
  /* ops.def section 3b, DEVICE: every stream of the device (an unknown
   * device on either side counts as the same); host pseudo-streams are not
   * device work */
  struct cl_sync sync = {CL_SYNC_DEVICE, CL_SC_ANY};
  for (size_t i = 0; i < e->nstreams; i++) {
    const struct hstream *s = &e->streams[i];
    if (s->flags & HB_STREAM_HOST)
      continue;
    struct cl_prior p = {sclass(s->flags), false,
                         device < 0 || s->device < 0 || s->device == device};
    enum cl_cover c = cl_sync_covers(&sync, &p);
    for (unsigned m = 0; c != CL_COVER_NONE && m < HB_MODELS; m++)
      if (cover_in_model(m, c, edge))
        vc_join(&e->threads[thread].c[m], &s->c[m]);
  }
}

void hb_thread_join(struct hb_engine *e, uint32_t thread, uint32_t from)
{
  if (thread == from)
    return;
  for (unsigned m = 0; m < HB_MODELS; m++)
    vc_join(&e->threads[thread].c[m], &e->threads[from].c[m]);
}

unsigned hb_ordered(const struct hb_engine *e, uint32_t stream,
                    uint32_t epoch, uint32_t cur)
{
  unsigned mask = 0;
  for (unsigned m = 0; m < HB_MODELS; m++)
    if (stream == cur || vc_get(&e->streams[cur].c[m], stream) >= epoch)
      mask |= 1u << m;
  return mask;
}

/* ---- shadow memory ------------------------------------------------------ */

static struct bucket *bucket_get(struct hb_engine *e, uint64_t key)
{
  uint64_t i;
  if (u64map_get(&e->bucket_index, key, &i))
    return &e->buckets[i];
  GROW(e->buckets, e->capbuckets, e->nbuckets + 1);
  memset(&e->buckets[e->nbuckets], 0, sizeof e->buckets[0]);
  u64map_init(&e->buckets[e->nbuckets].points);
  u64map_put(&e->bucket_index, key, e->nbuckets);
  return &e->buckets[e->nbuckets++];
}

void hb_bucket_drop(struct hb_engine *e, uint64_t key)
{
  uint64_t i;
  if (!u64map_get(&e->bucket_index, key, &i))
    return;
  free_bucket(&e->buckets[i]);
  u64map_init(&e->buckets[i].points);
}

static bool overlaps(const struct shentry *x, const struct hb_access *a)
{
  if (x->point && a->point)
    return x->lo == a->lo;
  if (x->point)
    return a->lo <= x->lo && x->lo < a->hi;
  if (a->point)
    return x->lo <= a->lo && a->lo < x->hi;
  return x->lo < a->hi && a->lo < x->hi;
}

unsigned hb_thread_knows(const struct hb_engine *e, uint32_t thread,
                         uint32_t stream, uint32_t epoch)
{
  unsigned mask = 0;
  for (unsigned m = 0; thread < e->nthreads && m < HB_MODELS; m++)
    if (vc_get(&e->threads[thread].c[m], stream) >= epoch)
      mask |= 1u << m;
  return mask;
}

/* bit m: some host thread knows, in model m, that (STREAM, EPOCH) is done */
static unsigned known_by_a_thread(const struct hb_engine *e, uint32_t stream,
                                  uint32_t epoch)
{
  unsigned mask = 0;
  for (size_t t = 0; t < e->nthreads; t++)
    mask |= hb_thread_knows(e, (uint32_t)t, stream, epoch);
  return mask;
}

static void check_pair(struct hb_engine *e, const struct hb_access *prev,
                       const struct hb_access *cur, hb_race_fn fn, void *ud)
{
  if (prev->stream == cur->stream || !(prev->write || cur->write))
    return;
  unsigned mask = hb_ordered(e, prev->stream, prev->epoch, cur->stream);
  if (mask != HB_ALL_MODELS)
    fn(ud, prev, cur, mask,
       mask | known_by_a_thread(e, prev->stream, prev->epoch));
}

static void check_entry(struct hb_engine *e, const struct shentry *x,
                        const struct hb_access *a, hb_race_fn fn, void *ud)
{
  if (x->has_write)
    check_pair(e, &x->w, a, fn, ud);
  if (a->write)
    for (unsigned r = 0; r < x->nreads; r++)
      check_pair(e, &x->reads[r], a, fn, ud);
}

static void update_entry(struct shentry *x, const struct hb_access *a)
{
  if (a->write) {
    x->w = *a;
    x->has_write = true;
    x->nreads = 0;
    return;
  }
  for (unsigned r = 0; r < x->nreads; r++)
    if (x->reads[r].stream == a->stream) {
      x->reads[r] = *a; /* a later read on the same stream subsumes it */
      return;
    }
  if (x->nreads == MAX_READS) {
    memmove(&x->reads[0], &x->reads[1], (MAX_READS - 1) * sizeof x->reads[0]);
    x->nreads--;
  }
  x->reads[x->nreads++] = *a;
}

static size_t new_entry(struct bucket *b, const struct hb_access *a)
{
  GROW(b->v, b->cap, b->n + 1);
  struct shentry *x = &b->v[b->n];
  memset(x, 0, sizeof *x);
  x->lo = a->lo;
  x->hi = a->point ? a->lo : a->hi;
  x->point = a->point;
  return b->n++;
}

void hb_access(struct hb_engine *e, uint64_t key, const struct hb_access *a,
               hb_race_fn fn, void *ud)
{
  struct bucket *b = bucket_get(e, key);
  size_t self = (size_t)-1;
  if (a->point) {
    uint64_t i;
    if (u64map_get(&b->points, a->lo, &i)) {
      self = (size_t)i;
      check_entry(e, &b->v[self], a, fn, ud);
    }
    for (size_t r = 0; r < b->nranges; r++) {
      const struct shentry *x = &b->v[b->ranges[r]];
      if (overlaps(x, a))
        check_entry(e, x, a, fn, ud);
    }
  } else {
    if (a->hi <= a->lo)
      return;
    for (size_t i = 0; i < b->n; i++) {
      const struct shentry *x = &b->v[i];
      if (!overlaps(x, a))
        continue;
      if (!x->point && x->lo == a->lo && x->hi == a->hi)
        self = i;
      check_entry(e, x, a, fn, ud);
    }
  }
  if (self == (size_t)-1) {
    self = new_entry(b, a);
    if (a->point) {
      u64map_put(&b->points, a->lo, self);
    } else {
      GROW(b->ranges, b->capranges, b->nranges + 1);
      b->ranges[b->nranges++] = self;
    }
  }
  update_entry(&b->v[self], a);
}

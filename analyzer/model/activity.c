/* activity.c - loads the activity table sorted by correlation (then start
 * time, then row order) and finds a call's records by binary search. */
#include "model/activity.h"

#include <stdlib.h>
#include <string.h>

#include "cudalens/format.h"
#include "u64map.h"
#include "util.h"

int parse_memkind(const char *s)
{
  if (!s)
    return -1;
  for (int k = 0; k < CL_MEMKIND_COUNT; k++)
    if (strcmp(s, cl_memkind_name((enum cl_memkind)k)) == 0)
      return k;
  return CL_MEMKIND_UNKNOWN;
}

int parse_dir(const char *s)
{
  if (!s)
    return -1;
  for (int k = 0; k < CL_DIR_COUNT; k++)
    if (strcmp(s, cl_dir_name((enum cl_dir)k)) == 0)
      return k;
  /* CUPTI's copy kinds (arrays count as device memory) */
  static const struct { const char *name; int dir; } alias[] = {
      {"htoa", CL_DIR_HTOD}, {"atoh", CL_DIR_DTOH}, {"atoa", CL_DIR_DTOD},
      {"atod", CL_DIR_DTOD}, {"dtoa", CL_DIR_DTOD}, {"ptop", CL_DIR_PEER},
      {"p2p", CL_DIR_PEER}};
  for (size_t i = 0; i < sizeof alias / sizeof *alias; i++)
    if (strcmp(s, alias[i].name) == 0)
      return alias[i].dir;
  return CL_DIR_UNKNOWN;
}

static int parse_act_kind(const char *s)
{
  if (!s)
    return ACT_OTHER;
  if (strcmp(s, "kernel") == 0)
    return ACT_KERNEL;
  if (strcmp(s, "memcpy") == 0)
    return ACT_MEMCPY;
  if (strcmp(s, "memset") == 0)
    return ACT_MEMSET;
  if (strcmp(s, "memcpy-p2p") == 0)
    return ACT_P2P;
  return ACT_OTHER;
}

static bool act_before(const struct act *x, const struct act *y)
{
  return x->correlation < y->correlation ||
         (x->correlation == y->correlation && x->start_ns < y->start_ns);
}

/* V in rowid order to (correlation, start_ns, rowid) order: a stable merge
 * sort by (correlation, start_ns), nothing to do when already in order
 * (records come nearly in correlation order); cheaper than SQLite reading
 * the table through the correlation index and sorting each run */
static void sort_stable(struct act *v, size_t n)
{
  size_t i = 1;
  while (i < n && !act_before(&v[i], &v[i - 1]))
    i++;
  if (i >= n)
    return;
  struct act *tmp = xmalloc(n * sizeof *tmp), *from = v, *to = tmp;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi)
        to[k++] = act_before(&from[b], &from[a]) ? from[b++] : from[a++];
      while (a < mid)
        to[k++] = from[a++];
      while (b < hi)
        to[k++] = from[b++];
    }
    struct act *t = from;
    from = to;
    to = t;
  }
  if (from != v)
    memcpy(v, from, n * sizeof *v);
  free(tmp);
}

/* read the rows of ST into A; false when a correlation or start_ns is not
 * an integer (a damaged or hand-made recording), whose order only SQLite's
 * ORDER BY gives */
static bool read_rows(struct activity *a, struct cl_db *d, sqlite3_stmt *st,
                      bool integers_only)
{
  size_t cap = 0, capdev = 0;
  bool ok = true;
  struct u64map devices;
  u64map_init(&devices);
  while (db_step(d, st)) {
    /* each column once, with its type (the connection is this thread's:
     * sqlite3_column_value) */
    sqlite3_value *c[10];
    for (int i = 0; i < 10; i++)
      c[i] = sqlite3_column_value(st, i);
    if (integers_only && (sqlite3_value_type(c[0]) != SQLITE_INTEGER ||
                          sqlite3_value_type(c[2]) != SQLITE_INTEGER)) {
      ok = false;
      break;
    }
    GROW(a->v, cap, a->n + 1);
    struct act *x = &a->v[a->n++];
    x->correlation = sqlite3_value_int64(c[0]);
    x->kind = (int8_t)parse_act_kind((const char *)sqlite3_value_text(c[1]));
    x->start_ns = sqlite3_value_int64(c[2]);
    x->end_ns = sqlite3_value_int64(c[3]);
    x->bytes = sqlite3_value_type(c[4]) == SQLITE_NULL
                   ? -1 : sqlite3_value_int64(c[4]);
    x->copy_dir = (int8_t)parse_dir((const char *)sqlite3_value_text(c[5]));
    x->src_kind =
        (int8_t)parse_memkind((const char *)sqlite3_value_text(c[6]));
    x->dst_kind =
        (int8_t)parse_memkind((const char *)sqlite3_value_text(c[7]));
    x->name = sqlite3_value_type(c[8]) == SQLITE_NULL
                  ? -1 : sqlite3_value_int64(c[8]);
    int64_t dev = sqlite3_value_int64(c[9]);
    if (sqlite3_value_type(c[9]) != SQLITE_NULL &&
        !u64map_get(&devices, (uint64_t)dev, NULL)) {
      u64map_put(&devices, (uint64_t)dev, 0);
      GROW(a->devices, capdev, a->ndevices + 1);
      a->devices[a->ndevices++] = dev;
    }
  }
  db_finalize(st);
  u64map_free(&devices);
  return ok;
}

void activity_load(struct activity *a, struct cl_db *d)
{
  memset(a, 0, sizeof *a);
  if (read_rows(a, d,
                db_prepare(d, "SELECT correlation, kind, start_ns, end_ns,"
                              " bytes, copy_kind, src_kind, dst_kind, name,"
                              " device FROM activity ORDER BY rowid"),
                true)) {
    sort_stable(a->v, a->n);
    return;
  }
  activity_free(a);
  read_rows(a, d,
            db_prepare(d, "SELECT correlation, kind, start_ns, end_ns, bytes,"
                          " copy_kind, src_kind, dst_kind, name, device"
                          " FROM activity"
                          " ORDER BY correlation, start_ns, rowid"),
            false);
}

void activity_free(struct activity *a)
{
  free(a->v);
  free(a->devices);
  memset(a, 0, sizeof *a);
}

/* the first record with correlation >= CORR, searched from *HINT (the
 * previous answer: a replay asks in nearly increasing order, so the answer
 * is near and the search touches few cache lines): galloping away from it
 * to bracket the answer, then a binary search in the bracket; *HINT set to
 * the answer.  The same answer as a binary search of the whole array. */
static size_t lower_bound(const struct activity *a, int64_t corr, size_t *hint)
{
  const struct act *v = a->v;
  size_t n = a->n, lo, hi, step = 1;
  size_t h = *hint < n ? *hint : n;
  if (h < n && v[h].correlation < corr) {
    /* the answer is after h: v[lo - 1] < corr */
    lo = h + 1;
    while (lo + step <= n && v[lo + step - 1].correlation < corr) {
      lo += step;
      step *= 2;
    }
    hi = lo + step - 1 < n ? lo + step - 1 : n;
  } else {
    /* at or before h: v[hi] >= corr, or hi == n */
    hi = h;
    while (hi >= step && v[hi - step].correlation >= corr) {
      hi -= step;
      step *= 2;
    }
    lo = hi >= step ? hi - step + 1 : 0;
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].correlation < corr)
      lo = mid + 1;
    else
      hi = mid;
  }
  *hint = lo;
  return lo;
}

const struct act *activity_find_near(const struct activity *a, int64_t corr,
                                     size_t *n, size_t *hint)
{
  size_t lo = lower_bound(a, corr, hint);
  size_t end = lo;
  while (end < a->n && a->v[end].correlation == corr)
    end++;
  *n = end - lo;
  return *n ? &a->v[lo] : NULL;
}

const struct act *activity_find(const struct activity *a, int64_t corr,
                                size_t *n)
{
  size_t lo = 0, hi = a->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a->v[mid].correlation < corr)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < a->n && a->v[end].correlation == corr)
    end++;
  *n = end - lo;
  return *n ? &a->v[lo] : NULL;
}

static void add(struct call_act *o, const struct act *x, size_t n)
{
  for (size_t i = 0; i < n; i++, x++) {
    if (o->n == 0 || x->start_ns < o->start_ns)
      o->start_ns = x->start_ns;
    if (o->n == 0 || x->end_ns > o->end_ns)
      o->end_ns = x->end_ns;
    o->n++;
    if (x->end_ns > x->start_ns)
      o->gpu_ns = sat_add(o->gpu_ns, sat_sub(x->end_ns, x->start_ns));
    if (x->bytes >= 0)
      o->bytes = sat_add(o->bytes < 0 ? 0 : o->bytes, x->bytes);
    if (o->name < 0)
      o->name = x->name;
    if (o->copy_dir < 0)
      o->copy_dir = x->copy_dir;
    if (o->src_kind < 0)
      o->src_kind = x->src_kind;
    if (o->dst_kind < 0)
      o->dst_kind = x->dst_kind;
  }
}

void activity_for_call(const struct activity *a, int64_t corr,
                       int64_t driver_corr, struct call_act *out)
{
  size_t hint = 0;
  activity_for_call_near(a, corr, driver_corr, out, &hint);
}

void activity_for_call_near(const struct activity *a, int64_t corr,
                            int64_t driver_corr, struct call_act *out,
                            size_t *hint)
{
  memset(out, 0, sizeof *out);
  out->bytes = out->name = -1;
  out->copy_dir = out->src_kind = out->dst_kind = -1;
  size_t n;
  const struct act *x;
  if (corr > 0 && (x = activity_find_near(a, corr, &n, hint)))
    add(out, x, n);
  if (driver_corr > 0 && driver_corr != corr &&
      (x = activity_find_near(a, driver_corr, &n, hint)))
    add(out, x, n);
}

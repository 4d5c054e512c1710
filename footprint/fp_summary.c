/* fp_summary.c - per kernel function, the launches counted and the
 * instrumented launches summarized (fp_summary.h), and the footprint file
 * written from them at exit.  A launch's accesses are merged into ranges
 * per kind (read, write, atomic: the Sanitizer's READ and WRITE flags,
 * both for an atomic), each range belongs to the argument word that points
 * into its allocation (the nearest at or below it, else above), and per
 * word and kind the launch's union is kept relative to the word's value;
 * over the launches, the union, and whether every instrumented launch had
 * exactly the same range (exact).  Ranges in memory no word points into are
 * kept relative to their allocation (fp_unattributed). */
#include "fp_summary.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalens/format.h"
#include "cudalens/tables.h"
#include "sqlite_api.h"

#define MAX_WORDS 128
#define MAX_UNATTR 32

struct entry {
  uint16_t param, offset;
  uint8_t kind;              /* enum cl_fp_kind */
  bool exact;
  int64_t lo, hi;
  uint64_t launches;         /* instrumented launches that had it */
};

struct unattr {
  uint8_t kind;
  int64_t alloc_size, index, lo, hi;
};

struct kernel {
  char *name;
  uint64_t launches, instrumented, unattributed;
  struct entry *e;
  size_t ne, cape;
  struct unattr u[MAX_UNATTR];
  size_t nu;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct kernel **table; /* open addressing by name */
static size_t cap, count;

static uint64_t hash(const char *s)
{
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

/* NAME's kernel, made when new (with the lock held); NULL when out of
 * memory */
static struct kernel *kernel_of(const char *name)
{
  if (2 * (count + 1) > cap) {
    size_t ncap = cap ? 2 * cap : 256;
    struct kernel **t = calloc(ncap, sizeof *t);
    if (!t)
      return NULL;
    for (size_t i = 0; i < cap; i++)
      if (table[i]) {
        size_t j = hash(table[i]->name) & (ncap - 1);
        while (t[j])
          j = (j + 1) & (ncap - 1);
        t[j] = table[i];
      }
    free(table);
    table = t;
    cap = ncap;
  }
  size_t j = hash(name) & (cap - 1);
  for (; table[j]; j = (j + 1) & (cap - 1))
    if (!strcmp(table[j]->name, name))
      return table[j];
  struct kernel *k = calloc(1, sizeof *k);
  if (!k || !(k->name = strdup(name))) {
    free(k);
    return NULL;
  }
  table[j] = k;
  count++;
  return k;
}

bool fp_sampled(uint64_t launch, unsigned first, bool sparse)
{
  if (launch == 0)
    return false;
  return launch <= first || (sparse && (launch & (launch - 1)) == 0);
}

uint64_t fp_launch(const char *name)
{
  pthread_mutex_lock(&lock);
  struct kernel *k = kernel_of(name ? name : "");
  uint64_t n = k ? ++k->launches : 0;
  pthread_mutex_unlock(&lock);
  return n;
}

static int kind_of(uint32_t flags)
{
  /* sanitizer_patching.h, Sanitizer_DeviceMemoryFlags: READ 0x1, WRITE 0x2
   * (both: an atomic read-modify-write); a prefetch alone is no access */
  int r = flags & 0x1, w = flags & 0x2;
  return r && w ? CL_FP_ATOMIC : w ? CL_FP_WRITE : r ? CL_FP_READ : -1;
}

static int by_kind_address(const void *x, const void *y)
{
  const struct fp_access *a = x, *b = y;
  int ka = kind_of(a->flags), kb = kind_of(b->flags);
  if (ka != kb)
    return ka < kb ? -1 : 1;
  return a->address < b->address ? -1 : a->address > b->address;
}

/* the word of W[0..NW) that range [S, ...) in allocation A belongs to: the
 * nearest pointing at or below S, else the nearest above; -1 none */
static int owner(const struct fp_word *w, size_t nw, const struct fp_alloc *a,
                 uint64_t s)
{
  int best = -1;
  for (size_t i = 0; i < nw; i++) {
    uint64_t v = w[i].value;
    if (v < a->start || v - a->start >= a->size)
      continue;
    if (best < 0) {
      best = (int)i;
      continue;
    }
    uint64_t b = w[best].value;
    if ((v <= s && (b > s || v > b)) || (v > s && b > s && v < b))
      best = (int)i;
  }
  return best;
}

struct local {
  int64_t lo, hi;
  bool seen;
};

static void add_unattr(struct kernel *k, const struct unattr *n)
{
  for (size_t i = 0; i < k->nu; i++) {
    struct unattr *u = &k->u[i];
    if (u->kind == n->kind && u->alloc_size == n->alloc_size &&
        u->index == n->index) {
      int64_t lo = n->lo, hi = n->hi;
      if (lo < u->lo)
        u->lo = lo;
      if (hi > u->hi)
        u->hi = hi;
      return;
    }
  }
  if (k->nu < MAX_UNATTR)
    k->u[k->nu++] = *n;
}

void fp_instrumented(const char *name, const struct fp_word *w, size_t nw,
                     struct fp_access *acc, size_t n, uint64_t dropped,
                     fp_alloc_find_fn find)
{
  if (nw > MAX_WORDS)
    nw = MAX_WORDS;
  struct local loc[MAX_WORDS][CL_FP_KIND_COUNT];
  memset(loc, 0, sizeof loc);
  struct unattr un[MAX_UNATTR];
  size_t nun = 0;
  bool unattributed = false;
  if (n)
    qsort(acc, n, sizeof *acc, by_kind_address);
  for (size_t i = 0; i < n;) {
    int k = kind_of(acc[i].flags);
    uint64_t s = acc[i].address, e = s + acc[i].size;
    size_t j = i + 1;
    for (; j < n && kind_of(acc[j].flags) == k && acc[j].address <= e; j++)
      if (acc[j].address + acc[j].size > e)
        e = acc[j].address + acc[j].size;
    i = j;
    if (k < 0)
      continue;
    struct fp_alloc a;
    int in = find && find(s, &a);
    int o = in ? owner(w, nw, &a, s) : -1;
    if (o >= 0) {
      struct local *l = &loc[o][k];
      int64_t lo = (int64_t)(s - w[o].value), hi = (int64_t)(e - w[o].value);
      if (!l->seen || lo < l->lo)
        l->lo = lo;
      if (!l->seen || hi > l->hi)
        l->hi = hi;
      l->seen = true;
      continue;
    }
    unattributed = true;
    int64_t size = in ? (int64_t)a.size : -1;
    int64_t index = in ? (int64_t)a.index : 0;
    int64_t lo = in ? (int64_t)(s - a.start) : (int64_t)s;
    int64_t hi = in ? (int64_t)(e - a.start) : (int64_t)e;
    size_t u = 0;
    while (u < nun && !(un[u].kind == k && un[u].alloc_size == size &&
                        un[u].index == index))
      u++;
    if (u == nun && nun < MAX_UNATTR)
      un[nun++] = (struct unattr){(uint8_t)k, size, index, lo, hi};
    else if (u < nun) {
      if (lo < un[u].lo)
        un[u].lo = lo;
      if (hi > un[u].hi)
        un[u].hi = hi;
    }
  }

  pthread_mutex_lock(&lock);
  struct kernel *kn = kernel_of(name ? name : "");
  if (!kn) {
    pthread_mutex_unlock(&lock);
    return;
  }
  for (size_t i = 0; i < nw; i++)
    for (int k = 0; k < CL_FP_KIND_COUNT; k++) {
      const struct local *l = &loc[i][k];
      if (!l->seen)
        continue;
      struct entry *e = NULL;
      for (size_t x = 0; x < kn->ne && !e; x++)
        if (kn->e[x].param == w[i].param && kn->e[x].offset == w[i].offset &&
            kn->e[x].kind == k)
          e = &kn->e[x];
      if (!e) {
        if (kn->ne == kn->cape) {
          size_t c = kn->cape ? 2 * kn->cape : 8;
          struct entry *v = realloc(kn->e, c * sizeof *v);
          if (!v)
            continue;
          kn->e = v;
          kn->cape = c;
        }
        e = &kn->e[kn->ne++];
        /* exact only when every instrumented launch had it */
        *e = (struct entry){w[i].param, w[i].offset, (uint8_t)k,
                            kn->instrumented == 0, l->lo, l->hi, 0};
      } else {
        if (l->lo != e->lo || l->hi != e->hi)
          e->exact = false;
        if (l->lo < e->lo)
          e->lo = l->lo;
        if (l->hi > e->hi)
          e->hi = l->hi;
      }
      if (dropped)
        e->exact = false; /* accesses were lost: a lower bound */
      e->launches++;
    }
  for (size_t u = 0; u < nun; u++)
    add_unattr(kn, &un[u]);
  kn->instrumented++;
  if (unattributed)
    kn->unattributed++;
  pthread_mutex_unlock(&lock);
}

/* ---- the file --------------------------------------------------------------- */

static int text_cb(void *arg, int n, char **v, char **names)
{
  (void)names;
  if (n > 0 && v[0])
    snprintf(arg, 64, "%s", v[0]);
  return 0;
}

static int step_done(sqlite3_stmt *st)
{
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* the statements of one kernel's merge: ?1 the name throughout */
static const char *const SQL_KERNEL =
    "INSERT INTO fp_kernels VALUES(?1, ?2, ?3, ?4) ON CONFLICT(name) DO"
    " UPDATE SET launches = launches + excluded.launches,"
    " instrumented = instrumented + excluded.instrumented,"
    " unattributed = unattributed + excluded.unattributed";
/* ?7: this process's exact; ?8: its instrumented launches (a row new to the
 * file is exact only when no other process instrumented the kernel) */
static const char *const SQL_RANGE =
    "INSERT INTO fp_ranges SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 AND"
    " (SELECT instrumented FROM fp_kernels WHERE name = ?1) = ?8 WHERE 1"
    " ON CONFLICT(name, param, offset, kind) DO UPDATE SET"
    " exact = exact AND ?7 AND lo = excluded.lo AND hi = excluded.hi,"
    " lo = min(lo, excluded.lo), hi = max(hi, excluded.hi)";
/* rows other processes wrote that this one's launches did not have */
static const char *const SQL_MISSING =
    "UPDATE fp_ranges SET exact = 0 WHERE name = ?1 AND"
    " (SELECT instrumented FROM fp_kernels WHERE name = ?1) > ?2 AND"
    " NOT EXISTS (SELECT 1 FROM temp.own o WHERE o.param = fp_ranges.param"
    " AND o.offset = fp_ranges.offset AND o.kind = fp_ranges.kind)";
static const char *const SQL_OWN = "INSERT INTO temp.own VALUES(?1, ?2, ?3)";
static const char *const SQL_UNATTR =
    "INSERT INTO fp_unattributed VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
    " ON CONFLICT(name, kind, alloc_size, alloc_index) DO UPDATE SET"
    " lo = min(lo, excluded.lo), hi = max(hi, excluded.hi)";

static int write_kernel(sqlite3 *db, sqlite3_stmt *const st[5],
                        const struct kernel *k)
{
  sqlite3_stmt *sk = st[0], *sr = st[1], *sm = st[2], *so = st[3],
               *su = st[4];
  sqlite3_bind_text(sk, 1, k->name, -1, SQLITE_STATIC);
  sqlite3_bind_int64(sk, 2, (sqlite3_int64)k->launches);
  sqlite3_bind_int64(sk, 3, (sqlite3_int64)k->instrumented);
  sqlite3_bind_int64(sk, 4, (sqlite3_int64)k->unattributed);
  if (step_done(sk))
    return -1;
  if (!k->instrumented)
    return 0;
  if (sqlite3_exec(db, "DELETE FROM temp.own", NULL, NULL, NULL) != SQLITE_OK)
    return -1;
  for (size_t i = 0; i < k->ne; i++) {
    const struct entry *e = &k->e[i];
    const char *kind = cl_fp_kind_name((enum cl_fp_kind)e->kind);
    sqlite3_bind_text(sr, 1, k->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(sr, 2, e->param);
    sqlite3_bind_int64(sr, 3, e->offset);
    sqlite3_bind_text(sr, 4, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(sr, 5, e->lo);
    sqlite3_bind_int64(sr, 6, e->hi);
    sqlite3_bind_int64(sr, 7, e->exact && e->launches == k->instrumented);
    sqlite3_bind_int64(sr, 8, (sqlite3_int64)k->instrumented);
    sqlite3_bind_int64(so, 1, e->param);
    sqlite3_bind_int64(so, 2, e->offset);
    sqlite3_bind_text(so, 3, kind, -1, SQLITE_STATIC);
    if (step_done(sr) || step_done(so))
      return -1;
  }
  sqlite3_bind_text(sm, 1, k->name, -1, SQLITE_STATIC);
  sqlite3_bind_int64(sm, 2, (sqlite3_int64)k->instrumented);
  if (step_done(sm))
    return -1;
  for (size_t i = 0; i < k->nu; i++) {
    const struct unattr *u = &k->u[i];
    sqlite3_bind_text(su, 1, k->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(su, 2, cl_fp_kind_name((enum cl_fp_kind)u->kind), -1,
                      SQLITE_STATIC);
    sqlite3_bind_int64(su, 3, u->alloc_size);
    sqlite3_bind_int64(su, 4, u->index);
    sqlite3_bind_int64(su, 5, u->lo);
    sqlite3_bind_int64(su, 6, u->hi);
    if (step_done(su))
      return -1;
  }
  return 0;
}

int fp_write(const char *path, const char *sample, char *why, size_t n)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st[5] = {NULL};
  char format[64] = "", version[64] = "", tables[64] = "";
  int rc = -1;
  pthread_mutex_lock(&lock);
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      NULL) != SQLITE_OK) {
    snprintf(why, n, "cannot open it: %s", db ? sqlite3_errmsg(db) : "?");
    goto out;
  }
  /* processes of one run may end together: one writes at a time */
  if (sqlite3_exec(db, "PRAGMA busy_timeout = 60000; BEGIN IMMEDIATE", NULL,
                   NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", text_cb, tables,
                   NULL) != SQLITE_OK) {
    snprintf(why, n, "cannot read it: %s", sqlite3_errmsg(db));
    goto out;
  }
  if (!strcmp(tables, "0")) { /* new: the schema of tables.def */
    char sql[256];
    snprintf(sql, sizeof sql,
             "PRAGMA user_version = %d; INSERT INTO meta VALUES('format', '%s');",
             CL_FOOTPRINT_VERSION, CL_FOOTPRINT_NAME);
    if (sqlite3_exec(db, cl_footprint_schema_sql(), NULL, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
      snprintf(why, n, "cannot create it: %s", sqlite3_errmsg(db));
      goto out;
    }
  } else {
    /* never write into a file that is not a footprint file */
    sqlite3_exec(db, "SELECT value FROM meta WHERE key = 'format'", text_cb,
                 format, NULL);
    sqlite3_exec(db, "PRAGMA user_version", text_cb, version, NULL);
    if (strcmp(format, CL_FOOTPRINT_NAME) || atoi(version) != CL_FOOTPRINT_VERSION) {
      snprintf(why, n, "it exists and is not a footprint file of format %d",
               CL_FOOTPRINT_VERSION);
      goto out;
    }
  }
  sqlite3_stmt *meta = NULL;
  if (sqlite3_prepare_v3(db, "INSERT OR REPLACE INTO meta VALUES("
                             "'footprint_sample', ?1)", -1, 0, &meta,
                         NULL) != SQLITE_OK)
    goto sqlerr;
  sqlite3_bind_text(meta, 1, sample, -1, SQLITE_STATIC);
  int mrc = step_done(meta);
  sqlite3_finalize(meta);
  if (mrc)
    goto sqlerr;
  if (sqlite3_exec(db, "CREATE TEMP TABLE own(param, offset, kind)", NULL,
                   NULL, NULL) != SQLITE_OK)
    goto sqlerr;
  const char *const sqls[5] = {SQL_KERNEL, SQL_RANGE, SQL_MISSING, SQL_OWN,
                               SQL_UNATTR};
  for (int i = 0; i < 5; i++)
    if (sqlite3_prepare_v3(db, sqls[i], -1, 0, &st[i], NULL) != SQLITE_OK)
      goto sqlerr;
  for (size_t i = 0; i < cap; i++)
    if (table[i] && write_kernel(db, st, table[i]))
      goto sqlerr;
  if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
    goto sqlerr;
  rc = 0;
  goto out;
sqlerr:
  snprintf(why, n, "cannot write it: %s", sqlite3_errmsg(db));
out:
  for (int i = 0; i < 5; i++)
    if (st[i])
      sqlite3_finalize(st[i]);
  if (db)
    sqlite3_close(db); /* an open transaction is rolled back */
  pthread_mutex_unlock(&lock);
  return rc;
}

void fp_forget_after_fork(void)
{
  pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  lock = fresh;
  table = NULL;
  cap = count = 0;
}

void fp_reset(void)
{
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < cap; i++)
    if (table[i]) {
      free(table[i]->name);
      free(table[i]->e);
      free(table[i]);
    }
  free(table);
  table = NULL;
  cap = count = 0;
  pthread_mutex_unlock(&lock);
}

/* memmodel.c - replays the memory table: a sorted array of live
 * allocations with binary search; a free removes the allocation that
 * starts at its address (an unmap: every mapping in its range).  Reserved
 * ranges are kept apart (their first mapping starts where they do).  The
 * access rights of mem_access are replayed with them: a cuMemSetAccess
 * gives the mappings then in its range, a pool's descriptors give the
 * pool.  Also what the memory kinds say about a copy (which side is on the
 * device, its direction). */
#include "model/memmodel.h"

#include <stdlib.h>
#include <string.h>

#include "cudalens/format.h"
#include "model/activity.h"
#include "util.h"

void memmodel_load(struct memmodel *m, struct cl_db *d)
{
  memset(m, 0, sizeof *m);
  size_t cap = 0;
#define MEM_READ                                                               \
  (CL_COLS(memory, seq) | CL_COLS(memory, op) | CL_COLS(memory, address) |     \
   CL_COLS(memory, size) | CL_COLS(memory, kind) | CL_COLS(memory, device))
#define MCOL(c) CL_RANK(MEM_READ, memory, c)
  sqlite3_stmt *st = db_prepare_table(
      d, CL_TABLE_memory, MEM_READ,
      "WHERE address IS NOT NULL AND address <> 0 ORDER BY seq");
  while (db_step(d, st)) {
    const char *op = db_text(st, MCOL(op));
    GROW(m->rows, cap, m->nrows + 1);
    struct memrow *r = &m->rows[m->nrows++];
    r->seq = db_int(st, MCOL(seq));
    r->is_free = op && strcmp(op, "free") == 0;
    r->a.seq = r->seq;
    r->a.address = (uint64_t)db_int(st, MCOL(address));
    r->a.size = db_null(st, MCOL(size)) ? 0 : (uint64_t)db_int(st, MCOL(size));
    int k = parse_memkind(db_text(st, MCOL(kind)));
    r->a.kind = k < 0 ? CL_MEMKIND_UNKNOWN : k;
    r->a.device = db_null(st, MCOL(device)) ? -1 : db_int(st, MCOL(device));
  }
#undef MCOL
#undef MEM_READ
  db_finalize(st);
  /* the pool or physical allocation of each allocation: both tables in seq
   * order, walked together */
  if (db_has_table(d, "alloc_handles")) {
    st = db_prepare_table(d, CL_TABLE_alloc_handles, CL_ALL_COLS,
                          "ORDER BY seq");
    size_t i = 0;
    while (db_step(d, st)) {
      int64_t seq = db_int(st, CL_COL_alloc_handles_seq);
      while (i < m->nrows && m->rows[i].seq < seq)
        i++;
      if (i < m->nrows && m->rows[i].seq == seq && !m->rows[i].is_free &&
          !db_null(st, CL_COL_alloc_handles_handle))
        m->rows[i].a.handle =
            (uint64_t)db_int(st, CL_COL_alloc_handles_handle);
    }
    db_finalize(st);
  }
  if (!db_has_table(d, "mem_access"))
    return;
  cap = 0;
  st = db_prepare_table(d, CL_TABLE_mem_access, CL_ALL_COLS,
                        "ORDER BY seq, device");
  while (db_step(d, st)) {
    GROW(m->acc, cap, m->nacc + 1);
    struct accrow *a = &m->acc[m->nacc++];
    const char *target = db_text(st, CL_COL_mem_access_target);
    a->seq = db_int(st, CL_COL_mem_access_seq);
    a->is_pool = target && strcmp(target, "pool") == 0;
    a->address = (uint64_t)db_int(st, CL_COL_mem_access_address);
    a->size = db_null(st, CL_COL_mem_access_size)
                  ? 0
                  : (uint64_t)db_int(st, CL_COL_mem_access_size);
    a->device = db_int(st, CL_COL_mem_access_device);
    a->flags = db_int(st, CL_COL_mem_access_flags);
  }
  db_finalize(st);
}

void memmodel_free(struct memmodel *m)
{
  free(m->rows);
  free(m->acc);
  free(m->res);
  free(m->pools);
  free(m->live);
  memset(m, 0, sizeof *m);
}

/* index of the first allocation of V[0..N) with address >= ADDR */
static size_t lower_in(const struct alloc *v, size_t n, uint64_t addr)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].address < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static size_t lower(const struct memmodel *m, uint64_t addr)
{
  return lower_in(m->live, m->nlive, addr);
}

/* apply one row of the memory table to the sorted array V */
static void apply_row(struct alloc **v, size_t *n, size_t *cap,
                      const struct memrow *r)
{
  size_t i = lower_in(*v, *n, r->a.address);
  bool here = i < *n && (*v)[i].address == r->a.address;
  if (r->is_free) {
    /* an unmap ends every mapping in its range */
    size_t k = here ? i + 1 : i;
    if (r->a.kind == CL_MEMKIND_MAPPED && r->a.size)
      while (k < *n && (*v)[k].address - r->a.address < r->a.size)
        k++;
    if (k > i) { /* (a free of nothing known: nothing to move) */
      memmove(&(*v)[i], &(*v)[k], (*n - k) * sizeof **v);
      *n -= k - i;
    }
  } else if (here) {
    (*v)[i] = r->a; /* a missed free: the new allocation wins */
  } else {
    GROW(*v, *cap, *n + 1);
    memmove(&(*v)[i + 1], &(*v)[i], (*n - i) * sizeof **v);
    (*v)[i] = r->a;
    (*n)++;
  }
}

static struct poolacc *pool_of(struct memmodel *m, uint64_t handle, bool add)
{
  for (size_t i = 0; i < m->npools; i++)
    if (m->pools[i].handle == handle)
      return &m->pools[i];
  if (!add)
    return NULL;
  GROW(m->pools, m->cappools, m->npools + 1);
  m->pools[m->npools] = (struct poolacc){handle, 0};
  return &m->pools[m->npools++];
}

static void apply_access(struct memmodel *m, const struct accrow *a)
{
  if (a->device < 0 || a->device >= 64)
    return;
  uint64_t bit = 1ull << a->device;
  if (a->is_pool) {
    struct poolacc *p = pool_of(m, a->address, true);
    p->access = a->flags & 1 ? p->access | bit : p->access & ~bit;
    return;
  }
  /* the mappings in the range now (later ones start with no access) */
  for (size_t i = lower(m, a->address);
       i < m->nlive && m->live[i].address - a->address < a->size; i++)
    if (m->live[i].kind == CL_MEMKIND_MAPPED)
      m->live[i].access = a->flags & 1 ? m->live[i].access | bit
                                       : m->live[i].access & ~bit;
}

void memmodel_advance(struct memmodel *m, int64_t seq)
{
  for (;;) {
    bool row = m->next < m->nrows && m->rows[m->next].seq <= seq;
    bool acc = m->nextacc < m->nacc && m->acc[m->nextacc].seq <= seq;
    if (!row && !acc)
      break;
    if (acc && (!row || m->acc[m->nextacc].seq < m->rows[m->next].seq)) {
      apply_access(m, &m->acc[m->nextacc++]);
      continue;
    }
    const struct memrow *r = &m->rows[m->next++];
    if (r->a.kind == CL_MEMKIND_RESERVED)
      apply_row(&m->res, &m->nres, &m->capres, r);
    else
      apply_row(&m->live, &m->nlive, &m->caplive, r);
  }
}

static const struct alloc *find_in(const struct alloc *v, size_t n,
                                   uint64_t addr)
{
  size_t i = lower_in(v, n, addr + 1); /* first with address > addr */
  if (i == 0)
    return NULL;
  const struct alloc *a = &v[i - 1];
  if (addr >= a->address && addr - a->address < (a->size ? a->size : 1))
    return a;
  return NULL;
}

const struct alloc *memmodel_find(const struct memmodel *m, uint64_t addr)
{
  return find_in(m->live, m->nlive, addr);
}

const struct alloc *memmodel_reservation(const struct memmodel *m,
                                         uint64_t addr)
{
  return find_in(m->res, m->nres, addr);
}

int memmodel_can_access(const struct memmodel *m, const struct alloc *a,
                        int64_t dev)
{
  if (dev < 0 || dev >= 64 || a->device < 0)
    return -1;
  if (a->kind == CL_MEMKIND_MAPPED)
    return dev == a->device || (a->access >> dev & 1);
  if (a->kind == CL_MEMKIND_DEVICE_ASYNC && a->handle) {
    if (dev == a->device)
      return 1;
    for (size_t i = 0; i < m->npools; i++)
      if (m->pools[i].handle == a->handle)
        return (m->pools[i].access >> dev & 1) != 0;
    return 0;
  }
  return -1;
}

static bool device_side(const struct memmodel *mm, uint64_t addr)
{
  const struct alloc *a = addr ? memmodel_find(mm, addr) : NULL;
  return a && memkind_on_device(a->kind);
}

bool memkind_on_device(int kind)
{
  return kind == CL_MEMKIND_DEVICE || kind == CL_MEMKIND_DEVICE_ASYNC ||
         kind == CL_MEMKIND_ARRAY || kind == CL_MEMKIND_MANAGED ||
         kind == CL_MEMKIND_MAPPED;
}

int copy_direction(int requested, const struct call_act *ca,
                   const struct memmodel *mm, uint64_t src, uint64_t dst)
{
  if (requested > CL_DIR_UNKNOWN && requested != CL_DIR_DEFAULT)
    return requested;
  if (ca->copy_dir > CL_DIR_UNKNOWN && ca->copy_dir != CL_DIR_DEFAULT)
    return ca->copy_dir;
  if (!src && !dst)
    return CL_DIR_UNKNOWN;
  bool s = device_side(mm, src), t = device_side(mm, dst);
  return s ? (t ? CL_DIR_DTOD : CL_DIR_DTOH) : (t ? CL_DIR_HTOD : CL_DIR_HTOH);
}

int memmodel_host_kind(const struct memmodel *m, int act_kind, uint64_t addr)
{
  if (act_kind > CL_MEMKIND_UNKNOWN && act_kind < CL_MEMKIND_COUNT)
    return act_kind;
  if (!addr)
    return CL_MEMKIND_UNKNOWN;
  const struct alloc *a = memmodel_find(m, addr);
  return a ? a->kind : CL_MEMKIND_PAGEABLE;
}

int memmodel_copy_host_kind(const struct memmodel *m, int dir,
                            const struct call_act *ca, uint64_t src,
                            uint64_t dst)
{
  if (dir == CL_DIR_HTOD || dir == CL_DIR_HTOH)
    return memmodel_host_kind(m, ca->src_kind, src);
  if (dir == CL_DIR_DTOH)
    return memmodel_host_kind(m, ca->dst_kind, dst);
  return CL_MEMKIND_COUNT;
}

/* memmodel.c - replays the memory table: a sorted array of live
 * allocations with binary search; a free removes the allocation that
 * starts at its address.  Also what the memory kinds say about a copy
 * (which side is on the device, its direction). */
#include "memmodel.h"

#include <stdlib.h>
#include <string.h>

#include "activity.h"
#include "cudalens/format.h"
#include "util.h"

void memmodel_load(struct memmodel *m, struct cl_db *d)
{
  memset(m, 0, sizeof *m);
  size_t cap = 0;
  sqlite3_stmt *st = db_prepare(
      d, "SELECT seq, op, address, size, kind, device FROM memory"
         " WHERE address IS NOT NULL AND address <> 0 ORDER BY seq");
  while (db_step(d, st)) {
    const char *op = db_text(st, 1);
    GROW(m->rows, cap, m->nrows + 1);
    struct memrow *r = &m->rows[m->nrows++];
    r->seq = db_int(st, 0);
    r->is_free = op && strcmp(op, "free") == 0;
    r->a.seq = r->seq;
    r->a.address = (uint64_t)db_int(st, 2);
    r->a.size = db_null(st, 3) ? 0 : (uint64_t)db_int(st, 3);
    int k = parse_memkind(db_text(st, 4));
    r->a.kind = k < 0 ? CL_MEMKIND_UNKNOWN : k;
    r->a.device = db_null(st, 5) ? -1 : db_int(st, 5);
  }
  db_finalize(st);
}

void memmodel_free(struct memmodel *m)
{
  free(m->rows);
  free(m->live);
  memset(m, 0, sizeof *m);
}

/* index of the first live allocation with address >= ADDR */
static size_t lower(const struct memmodel *m, uint64_t addr)
{
  size_t lo = 0, hi = m->nlive;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->live[mid].address < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void memmodel_advance(struct memmodel *m, int64_t seq)
{
  for (; m->next < m->nrows && m->rows[m->next].seq <= seq; m->next++) {
    const struct memrow *r = &m->rows[m->next];
    size_t i = lower(m, r->a.address);
    bool here = i < m->nlive && m->live[i].address == r->a.address;
    if (r->is_free) {
      if (here) {
        memmove(&m->live[i], &m->live[i + 1],
                (m->nlive - i - 1) * sizeof *m->live);
        m->nlive--;
      }
    } else if (here) {
      m->live[i] = r->a; /* a missed free: the new allocation wins */
    } else {
      GROW(m->live, m->caplive, m->nlive + 1);
      memmove(&m->live[i + 1], &m->live[i], (m->nlive - i) * sizeof *m->live);
      m->live[i] = r->a;
      m->nlive++;
    }
  }
}

const struct alloc *memmodel_find(const struct memmodel *m, uint64_t addr)
{
  size_t i = lower(m, addr + 1); /* first with address > addr */
  if (i == 0)
    return NULL;
  const struct alloc *a = &m->live[i - 1];
  if (addr >= a->address && addr - a->address < (a->size ? a->size : 1))
    return a;
  return NULL;
}

static bool device_side(const struct memmodel *mm, uint64_t addr)
{
  const struct alloc *a = addr ? memmodel_find(mm, addr) : NULL;
  return a && memkind_on_device(a->kind);
}

bool memkind_on_device(int kind)
{
  return kind == CL_MEMKIND_DEVICE || kind == CL_MEMKIND_DEVICE_ASYNC ||
         kind == CL_MEMKIND_ARRAY || kind == CL_MEMKIND_MANAGED;
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

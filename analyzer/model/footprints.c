/* footprints.c - reads a footprint file (footprints.h) through the checked
 * opening of db.c (db_open_footprints) and the SELECTs generated from
 * tables.def; each cell's type is checked here, once. */
#include "model/footprints.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "model/db.h"
#include "util.h"

/* every cell of the current row of ST (all the columns of table T) has the
 * type tables.def declares */
static bool row_ok(sqlite3_stmt *st, enum cl_table t)
{
  const struct cl_table_decl *d = &cl_tables[t];
  for (int c = 0; c < d->ncols; c++)
    if (sqlite3_column_type(st, c) != (int)d->cols[c].type)
      return false;
  return true;
}

static int by_name(const void *a, const void *b)
{
  return strcmp(((const struct fp_kernel *)a)->name,
                ((const struct fp_kernel *)b)->name);
}

static int by_place(const void *a, const void *b)
{
  const struct fp_range *x = a, *y = b;
  if (x->param != y->param)
    return x->param < y->param ? -1 : 1;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  return (int)x->kind - (int)y->kind;
}

static struct fp_kernel *find(const struct footprints *fp, const char *name)
{
  struct fp_kernel key = {.name = (char *)name};
  return fp->n ? bsearch(&key, fp->k, fp->n, sizeof *fp->k, by_name) : NULL;
}

int footprints_read(struct footprints *fp, const char *path, char **err)
{
  memset(fp, 0, sizeof *fp);
  struct cl_db d;
  if (db_open_footprints(&d, path, err) < 0)
    return -1;
  fp->path = xstrdup(path);
  size_t cap = 0;
  sqlite3_stmt *st =
      db_prepare_table(&d, CL_TABLE_fp_kernels, CL_ALL_COLS, "ORDER BY name");
  while (db_step(&d, st)) {
    if (!row_ok(st, CL_TABLE_fp_kernels))
      continue;
    GROW(fp->k, cap, fp->n + 1);
    fp->k[fp->n++] = (struct fp_kernel){
        .name = xstrdup(db_text(st, CL_COL_fp_kernels_name)),
        .launches = db_int(st, CL_COL_fp_kernels_launches),
        .instrumented = db_int(st, CL_COL_fp_kernels_instrumented),
        .unattributed = db_int(st, CL_COL_fp_kernels_unattributed)};
  }
  db_finalize(st);
  if (fp->n) /* ORDER BY name is SQLite's collation; bsearch wants strcmp's */
    qsort(fp->k, fp->n, sizeof *fp->k, by_name);
  st = db_prepare_table(&d, CL_TABLE_fp_ranges, CL_ALL_COLS, "");
  size_t *caps = xcalloc(fp->n ? fp->n : 1, sizeof *caps);
  while (db_step(&d, st)) {
    int kind;
    struct fp_kernel *k;
    if (!row_ok(st, CL_TABLE_fp_ranges) ||
        (kind = cl_fp_kind_of(db_text(st, CL_COL_fp_ranges_kind))) < 0 ||
        !(k = find(fp, db_text(st, CL_COL_fp_ranges_name))))
      continue;
    int64_t param = db_int(st, CL_COL_fp_ranges_param),
            offset = db_int(st, CL_COL_fp_ranges_offset),
            lo = db_int(st, CL_COL_fp_ranges_lo),
            hi = db_int(st, CL_COL_fp_ranges_hi);
    if (param < 0 || param > INT32_MAX || offset < 0 || offset > INT32_MAX ||
        hi <= lo)
      continue;
    size_t i = (size_t)(k - fp->k);
    GROW(k->r, caps[i], k->nr + 1);
    k->r[k->nr++] = (struct fp_range){
        (int32_t)param, (int32_t)offset, (enum cl_fp_kind)kind, lo, hi,
        db_int(st, CL_COL_fp_ranges_exact) == 1};
  }
  db_finalize(st);
  memset(caps, 0, (fp->n ? fp->n : 1) * sizeof *caps);
  st = db_prepare_table(&d, CL_TABLE_fp_unattributed, CL_ALL_COLS, "");
  while (db_step(&d, st)) {
    int kind;
    struct fp_kernel *k;
    if (!row_ok(st, CL_TABLE_fp_unattributed) ||
        (kind = cl_fp_kind_of(db_text(st, CL_COL_fp_unattributed_kind))) < 0 ||
        !(k = find(fp, db_text(st, CL_COL_fp_unattributed_name))))
      continue;
    int64_t size = db_int(st, CL_COL_fp_unattributed_alloc_size),
            index = db_int(st, CL_COL_fp_unattributed_alloc_index),
            lo = db_int(st, CL_COL_fp_unattributed_lo),
            hi = db_int(st, CL_COL_fp_unattributed_hi);
    if (size <= 0 || index <= 0 || lo < 0 || hi <= lo || hi > size)
      continue; /* not in an allocation the report can find */
    size_t i = (size_t)(k - fp->k);
    GROW(k->ind, caps[i], k->nind + 1);
    k->ind[k->nind++] =
        (struct fp_indirect){(enum cl_fp_kind)kind, size, index, lo, hi};
  }
  db_finalize(st);
  free(caps);
  for (size_t i = 0; i < fp->n; i++)
    if (fp->k[i].nr)
      qsort(fp->k[i].r, fp->k[i].nr, sizeof *fp->k[i].r, by_place);
  db_close(&d);
  return 0;
}

const struct fp_kernel *footprints_kernel(const struct footprints *fp,
                                          const char *mangled)
{
  if (!fp || !mangled)
    return NULL;
  const struct fp_kernel *k = find(fp, mangled);
  return k && k->instrumented > 0 ? k : NULL;
}

void footprints_free(struct footprints *fp)
{
  for (size_t i = 0; i < fp->n; i++) {
    free(fp->k[i].name);
    free(fp->k[i].r);
    free(fp->k[i].ind);
  }
  free(fp->k);
  free(fp->path);
  memset(fp, 0, sizeof *fp);
}

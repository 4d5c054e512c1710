/* tables.c - the tables of a recording (and of a footprint file) as data
 * and as SQL, generated from include/cudalens/tables.def: the schema text
 * of each kind of file, the indexes, and the SELECT and INSERT of every
 * column of a table, in its order. */
#include "cudalens/tables.h"
#include "cudalens/format.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CL_TABLE(t, since) static const struct cl_column cols_##t[] = {
#define CL_COL(t, c, type, cons) {#c, CL_SQL_##type, cons},
#define CL_END(t, tcons, opts) };
#include "cudalens/tables.def"
#undef CL_TABLE
#undef CL_COL
#undef CL_END

/* the meta table is in both kinds of file */
#define FILE_OF(t)                                                             \
  (CL_TABLE_##t == CL_TABLE_meta ? CL_FILE_RECORDING | CL_FILE_FOOTPRINT       \
                                 : CL_FILE_RECORDING)
const struct cl_table_decl cl_tables[CL_NTABLES] = {
#define CL_TABLE(t, since) {#t, FILE_OF(t), since, cols_##t, CL_NCOLS_##t,
#define CL_FP_TABLE(t, since) {#t, CL_FILE_FOOTPRINT, since, cols_##t, CL_NCOLS_##t,
#define CL_END(t, tcons, opts) tcons, opts},
#include "cudalens/tables.def"
#undef CL_TABLE
#undef CL_FP_TABLE
#undef CL_END
};

static const char *const meta_keys[CL_NMETA][2] = {
#define CL_META(k, meaning) {#k, meaning},
#include "cudalens/tables.def"
#undef CL_META
};

const char CL_INDEX_SQL[] =
#define CL_INDEX(i, on) "CREATE INDEX IF NOT EXISTS " #i " ON " on ";\n"
#include "cudalens/tables.def"
#undef CL_INDEX
    "";

static const char *const views[][2] = {
#define CL_VIEW(v, select) {#v, select},
#include "cudalens/tables.def"
#undef CL_VIEW
};

int cl_table_until(enum cl_table t)
{
  switch (t) {
#define CL_RETIRED(t, until)                                                   \
  case CL_TABLE_##t:                                                           \
    return until;
#include "cudalens/tables.def"
#undef CL_RETIRED
  default:
    return 0;
  }
}

const struct cl_table_decl *cl_table_named(const char *name)
{
  for (int t = 0; name && t < CL_NTABLES; t++)
    if (!strcmp(cl_tables[t].name, name))
      return &cl_tables[t];
  return NULL;
}

const char *cl_meta_key(enum cl_meta k)
{
  return (unsigned)k < CL_NMETA ? meta_keys[k][0] : NULL;
}

const char *cl_meta_meaning(enum cl_meta k)
{
  return (unsigned)k < CL_NMETA ? meta_keys[k][1] : NULL;
}

/* appending to a buffer: the length so far, or -1 once it did not fit */
struct text {
  char *buf;
  size_t size;
  int len;
};

__attribute__((format(printf, 2, 3))) static void add(struct text *x,
                                                      const char *fmt, ...)
{
  if (x->len < 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(x->buf + x->len, x->size - (size_t)x->len, fmt, ap);
  va_end(ap);
  x->len = n < 0 || (size_t)n >= x->size - (size_t)x->len ? -1 : x->len + n;
}

int cl_select_sql(char *buf, size_t size, enum cl_table t,
                  unsigned long long cols, const char *tail)
{
  struct text x = {buf, size, 0};
  if (!size || (unsigned)t >= CL_NTABLES)
    return -1;
  const struct cl_table_decl *d = &cl_tables[t];
  add(&x, "SELECT ");
  for (int c = 0, n = 0; c < d->ncols; c++)
    if (cols >> c & 1)
      add(&x, "%s%s", n++ ? ", " : "", d->cols[c].name);
  add(&x, " FROM %s%s%s", d->name, tail && *tail ? " " : "", tail ? tail : "");
  return x.len;
}

int cl_insert_sql(char *buf, size_t size, const char *verb, enum cl_table t,
                  const char *tail)
{
  struct text x = {buf, size, 0};
  if (!size || (unsigned)t >= CL_NTABLES)
    return -1;
  const struct cl_table_decl *d = &cl_tables[t];
  add(&x, "%s INTO %s VALUES(", verb, d->name);
  for (int c = 0; c < d->ncols; c++)
    add(&x, c ? ",?" : "?");
  add(&x, ")%s", tail ? tail : "");
  return x.len;
}

/* whether table T is in recordings of schema VERSION */
static int in_version(int t, int version)
{
  int until = cl_table_until((enum cl_table)t);
  return cl_tables[t].since <= version && (!until || version < until);
}

/* CREATE TABLE t(column TYPE constraints, ..., table constraints) options;
 * one line each for the tables of FILE (a recording: of schema VERSION),
 * then (a recording) the views, one named as a table only once the table
 * is retired; the length, or -1 when it did not fit (BUF then empty) */
static int build(char *buf, size_t size, int file, int version)
{
  struct text x = {buf, size, 0};
  if (!size)
    return -1;
  for (int t = 0; t < CL_NTABLES; t++) {
    const struct cl_table_decl *d = &cl_tables[t];
    if (!(d->file & file) ||
        (file == CL_FILE_RECORDING && !in_version(t, version)))
      continue;
    add(&x, "CREATE TABLE %s(", d->name);
    for (int c = 0; c < d->ncols; c++) {
      const struct cl_column *col = &d->cols[c];
      add(&x, "%s%s %s%s%s", c ? ", " : "", col->name,
          col->type == CL_SQL_INTEGER ? "INTEGER"
          : col->type == CL_SQL_TEXT  ? "TEXT"
                                      : "BLOB",
          *col->constraints ? " " : "", col->constraints);
    }
    add(&x, "%s%s)%s%s;\n", *d->constraints ? ", " : "", d->constraints,
        *d->options ? " " : "", d->options);
  }
  for (size_t v = 0;
       file == CL_FILE_RECORDING && v < sizeof views / sizeof *views; v++) {
    const struct cl_table_decl *d = cl_table_named(views[v][0]);
    int until = d ? cl_table_until((enum cl_table)(d - cl_tables)) : 0;
    if (!d || (until && version >= until))
      add(&x, "CREATE VIEW %s AS %s;\n", views[v][0], views[v][1]);
  }
  if (x.len < 0) /* tests/unit/common/test_tables fails first */
    buf[0] = 0;
  return x.len;
}

int cl_schema_sql_of(char *buf, size_t size, int version)
{
  return build(buf, size, CL_FILE_RECORDING, version);
}

static char schema[16384], fp_schema[2048];

static void build_schema(void)
{
  build(schema, sizeof schema, CL_FILE_RECORDING, CL_SCHEMA_VERSION);
  build(fp_schema, sizeof fp_schema, CL_FILE_FOOTPRINT, 0);
}

const char *cl_schema_sql(void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, build_schema);
  return schema;
}

const char *cl_footprint_schema_sql(void)
{
  cl_schema_sql();
  return fp_schema;
}

/* names.c - strings by id and kernel names, read and demangled once per
 * connection (names.h). */
#include "model/names.h"

#include <stdlib.h>

#include "sites/demangle.h"
#include "u64map.h"
#include "util.h"

struct name_entry {
  char *value;     /* NULL: no such string */
  char *demangled; /* once asked for */
  bool demangled_done;
};

struct names {
  struct u64map by_id; /* id -> index into v */
  struct name_entry *v;
  size_t n, cap;
  sqlite3_stmt *st;    /* SELECT value FROM strings WHERE id=?1 */
};

static struct name_entry *entry(struct cl_db *d, int64_t id)
{
  struct names *c = d->names;
  if (!c) {
    c = d->names = xcalloc(1, sizeof *c);
    u64map_init(&c->by_id);
  }
  uint64_t i;
  if (u64map_get(&c->by_id, (uint64_t)id, &i))
    return &c->v[i];
  if (!c->st)
    c->st = db_prepare(d, "SELECT value FROM strings WHERE id=?1");
  char *v = NULL;
  if (c->st) { /* NULL only on a twin whose query failed */
    sqlite3_bind_int64(c->st, 1, id);
    if (db_step(d, c->st) && !db_null(c->st, 0))
      v = xstrdup(db_text(c->st, 0));
    sqlite3_reset(c->st);
  }
  GROW(c->v, c->cap, c->n + 1);
  c->v[c->n] = (struct name_entry){v, NULL, false};
  u64map_put(&c->by_id, (uint64_t)id, c->n);
  return &c->v[c->n++];
}

const char *names_string(struct cl_db *d, int64_t id)
{
  return entry(d, id)->value;
}

struct kernel_name names_kernel(struct cl_db *d, int64_t id)
{
  struct name_entry *e = entry(d, id);
  if (!e->demangled_done) {
    e->demangled = cl_demangle(e->value);
    e->demangled_done = true;
  }
  return (struct kernel_name){e->value, e->demangled};
}

void names_free(struct cl_db *d)
{
  struct names *c = d->names;
  if (!c)
    return;
  db_finalize(c->st);
  for (size_t i = 0; i < c->n; i++) {
    free(c->v[i].value);
    free(c->v[i].demangled);
  }
  free(c->v);
  u64map_free(&c->by_id);
  free(c);
  d->names = NULL;
}

/* merge.c - merging the findings of several recordings (merge.h). */
#include "checks/merge.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int has_origin(const struct finding *f, size_t i)
{
  for (size_t k = 0; k < f->norigins; k++)
    if (f->origins[k] == i)
      return 1;
  return 0;
}

static void add_origin(struct finding *f, size_t i)
{
  GROW(f->origins, f->cap_origins, f->norigins + 1);
  f->origins[f->norigins++] = i;
}

/* a growing string */
struct text {
  char *s;
  size_t n, cap;
};

static void append(struct text *t, const char *s)
{
  size_t len = strlen(s);
  GROW(t->s, t->cap, t->n + len + 1);
  memcpy(t->s + t->n, s, len + 1);
  t->n += len;
}

/* "ranks 0-3, 5" (sorted, runs of consecutive ranks as ranges) */
static char *rank_label(const struct finding *f,
                        const struct process *const *p)
{
  int64_t *v = xcalloc(f->norigins, sizeof *v);
  size_t n = 0;
  /* origins ascend and recordings are in rank order: so do the ranks */
  for (size_t k = 0; k < f->norigins; k++) {
    int64_t rank = p[f->origins[k]]->rank;
    if (!n || v[n - 1] != rank)
      v[n++] = rank;
  }
  struct text t = {0};
  append(&t, n == 1 ? "rank " : "ranks ");
  char b[48];
  for (size_t k = 0; k < n;) {
    size_t e = k;
    while (e + 1 < n && v[e + 1] == v[e] + 1)
      e++;
    if (e > k)
      snprintf(b, sizeof b, "%s%" PRId64 "-%" PRId64, k ? ", " : "", v[k], v[e]);
    else
      snprintf(b, sizeof b, "%s%" PRId64, k ? ", " : "", v[k]);
    append(&t, b);
    k = e + 1;
  }
  free(v);
  return t.s;
}

/* "processes 1234, 1240" (a pid once, though an exec'd program records
 * twice under it) */
static char *pid_label(const struct finding *f,
                       const struct process *const *p)
{
  const char **v = xcalloc(f->norigins, sizeof *v);
  size_t n = 0;
  for (size_t k = 0; k < f->norigins; k++) {
    const char *pid = p[f->origins[k]]->pid;
    pid = pid ? pid : "?";
    size_t j = 0;
    while (j < n && strcmp(v[j], pid))
      j++;
    if (j == n)
      v[n++] = pid;
  }
  struct text t = {0};
  append(&t, n == 1 ? "process " : "processes ");
  for (size_t k = 0; k < n; k++) {
    if (k)
      append(&t, ", ");
    append(&t, v[k]);
  }
  free(v);
  return t.s;
}

char *merge_origin_label(const struct finding *f,
                         const struct merge_origins *o)
{
  return o->by_rank ? rank_label(f, o->procs) : pid_label(f, o->procs);
}

void merge_findings(struct findings *out, struct findings *const *from,
                    const struct merge_origins *o)
{
  findings_init(out);
  for (size_t i = 0; i < o->n; i++) {
    struct findings *fs = from[i];
    for (size_t k = 0; k < fs->n; k++) {
      struct finding *f = &fs->v[k];
      struct finding *into = NULL;
      for (size_t m = 0; m < out->n && !into; m++)
        if (out->v[m].severity == f->severity &&
            strcmp(out->v[m].fingerprint, f->fingerprint) == 0 &&
            !has_origin(&out->v[m], i))
          into = &out->v[m];
      if (into) {
        into->count += f->count;
        into->cost_ns = sat_add(into->cost_ns, f->cost_ns);
        add_origin(into, i);
        finding_clear(f);
      } else {
        GROW(out->v, out->cap, out->n + 1);
        out->v[out->n] = *f; /* moved: it owns its strings now */
        memset(f, 0, sizeof *f);
        add_origin(&out->v[out->n++], i);
      }
    }
    findings_free(fs);
  }
  for (size_t m = 0; m < out->n; m++)
    out->v[m].origin_label = merge_origin_label(&out->v[m], o);
  findings_sort(out);
}

/* findings.c - the findings list of findings.h. */
#define _GNU_SOURCE /* vasprintf */
#include "checks/findings.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudalens/fnv.h"
#include "util.h"

static const char *const sev_names[] = {"note", "warning", "error"};

const char *severity_name(enum severity s)
{
  return (unsigned)s <= SEV_ERROR ? sev_names[s] : "note";
}

int severity_parse(const char *s)
{
  for (int i = 0; i <= SEV_ERROR; i++)
    if (strcmp(s, sev_names[i]) == 0)
      return i;
  return -1;
}

void findings_init(struct findings *fs)
{
  memset(fs, 0, sizeof *fs);
}

void finding_clear(struct finding *f)
{
  free(f->kind);
  free(f->message);
  location_free(&f->loc);
  for (size_t r = 0; r < f->nrelated; r++) {
    free(f->related[r].message);
    location_free(&f->related[r].loc);
  }
  free(f->related);
  for (size_t e = 0; e < f->nextra; e++)
    free(f->extra[e].name);
  free(f->extra);
  free(f->fix);
  for (size_t k = 0; k < f->nkernels; k++)
    free(f->kernels[k]);
  free(f->kernels);
  free(f->origins);
  free(f->origin_label);
  memset(f, 0, sizeof *f);
}

void findings_free(struct findings *fs)
{
  for (size_t i = 0; i < fs->n; i++)
    finding_clear(&fs->v[i]);
  free(fs->v);
  findings_init(fs);
}

static char *vformat(const char *fmt, va_list ap)
{
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0)
    fail_oom();
  return s;
}

struct finding *findings_add(struct findings *fs, enum check_id check,
                             const struct location *loc, const char *fmt, ...)
{
  GROW(fs->v, fs->cap, fs->n + 1);
  struct finding *f = &fs->v[fs->n++];
  memset(f, 0, sizeof *f);
  f->check = check;
  f->kind = xstrdup(check_info(check)->kind);
  f->severity = check_info(check)->severity;
  location_copy(&f->loc, loc);
  va_list ap;
  va_start(ap, fmt);
  f->message = vformat(fmt, ap);
  va_end(ap);
  f->count = 1;
  return f;
}

void finding_lower_severity(struct finding *f, enum severity sev)
{
  if (sev < f->severity)
    f->severity = sev;
}

static void add_related(struct finding *f, const struct location *loc,
                        int detail, const char *fmt, va_list ap)
{
  GROW(f->related, f->cap_related, f->nrelated + 1);
  struct related *r = &f->related[f->nrelated++];
  location_copy(&r->loc, loc);
  r->message = vformat(fmt, ap);
  r->detail = detail;
}

void finding_add_related(struct finding *f, const struct location *loc,
                         const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  add_related(f, loc, 0, fmt, ap);
  va_end(ap);
}

void finding_add_detail(struct finding *f, const struct location *loc,
                        const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  add_related(f, loc, 1, fmt, ap);
  va_end(ap);
}

const char cost_rule_text[] =
    "Severity: a warning of this kind is a note when what it costs (the "
    "host or GPU time it takes, cost_ns in JSON) is under 10 ms and under "
    "1% of the process's wall time, or when all its calls came before the "
    "process's first kernel launch (setup, run once: not a loop).";

int check_cost_rated(enum check_id check)
{
  return check == CHECK_SYNC_COPY || check == CHECK_PAGEABLE_ASYNC_COPY ||
         check == CHECK_SYNC_MEMSET || check == CHECK_REPEATED_PINNING;
}

void finding_cost_severity(struct finding *f, int64_t wall_ns, int setup)
{
  if (f->severity == SEV_ERROR || !check_cost_rated(f->check))
    return;
  if (setup) {
    char *m = xasprintf("%s, all before the first kernel launch (setup)",
                        f->message);
    free(f->message);
    f->message = m;
    finding_set_flag(f, "setup", 1);
    finding_lower_severity(f, SEV_NOTE);
    return;
  }
  if (wall_ns > 0 && f->cost_ns < COST_NOTE_NS &&
      f->cost_ns < wall_ns / 1000 * COST_NOTE_PERMILLE)
    finding_lower_severity(f, SEV_NOTE);
}

static void set_extra(struct finding *f, const char *name, int64_t value,
                      int is_flag)
{
  for (size_t i = 0; i < f->nextra; i++)
    if (strcmp(f->extra[i].name, name) == 0) {
      f->extra[i].value = value;
      f->extra[i].is_flag = is_flag;
      return;
    }
  GROW(f->extra, f->cap_extra, f->nextra + 1);
  f->extra[f->nextra].name = xstrdup(name);
  f->extra[f->nextra].value = value;
  f->extra[f->nextra].is_flag = is_flag;
  f->nextra++;
}

void finding_set_extra(struct finding *f, const char *name, int64_t value)
{
  set_extra(f, name, value, 0);
}

void finding_set_flag(struct finding *f, const char *name, int value)
{
  set_extra(f, name, value != 0, 1);
}

void finding_add_op(struct finding *f, int64_t seq)
{
  if (f->nops < FINDING_MAX_OPS)
    f->ops[f->nops++] = seq;
}

void finding_set_fix(struct finding *f, const char *fmt, ...)
{
  free(f->fix);
  va_list ap;
  va_start(ap, fmt);
  f->fix = vformat(fmt, ap);
  va_end(ap);
}

void finding_add_kernel(struct finding *f, const char *name)
{
  if (!name)
    return;
  for (size_t k = 0; k < f->nkernels; k++)
    if (strcmp(f->kernels[k], name) == 0)
      return;
  GROW(f->kernels, f->cap_kernels, f->nkernels + 1);
  f->kernels[f->nkernels++] = xstrdup(name);
}

static int strcmp0(const char *a, const char *b)
{
  return strcmp(a ? a : "", b ? b : "");
}

/* a file sorts before no file, so findings with a place come first */
static int cmp_file(const char *a, const char *b)
{
  if (!a || !b)
    return a ? -1 : b ? 1 : 0;
  return strcmp(a, b);
}

/* severity (error first), file, line (for a place without a file: module
 * and offset in it, which do not change between runs of one build), kind,
 * message; then function, module and count, so the order is total.  The
 * cost is not a key: it is measured and varies between runs of one
 * program (it is in the messages). */
static int cmp_finding(const void *pa, const void *pb)
{
  const struct finding *a = pa, *b = pb;
  if (a->severity != b->severity)
    return a->severity > b->severity ? -1 : 1;
  int c;
  if ((c = cmp_file(a->loc.file, b->loc.file)))
    return c;
  if (a->loc.line != b->loc.line)
    return a->loc.line < b->loc.line ? -1 : 1;
  if (!a->loc.file) {
    if ((c = cmp_file(a->loc.module, b->loc.module)))
      return c;
    if (a->loc.offset != b->loc.offset)
      return a->loc.offset < b->loc.offset ? -1 : 1;
  }
  if ((c = strcmp0(a->kind, b->kind)))
    return c;
  if ((c = strcmp0(a->message, b->message)))
    return c;
  if ((c = strcmp0(a->loc.function, b->loc.function)))
    return c;
  if ((c = strcmp0(a->loc.module, b->loc.module)))
    return c;
  if (a->count != b->count)
    return a->count > b->count ? -1 : 1;
  return 0;
}

void findings_sort(struct findings *fs)
{
  if (fs->n > 1)
    qsort(fs->v, fs->n, sizeof *fs->v, cmp_finding);
}

char *source_root_normalize(const char *root)
{
  char *full;
  if (root[0] == '/') {
    full = xstrdup(root);
  } else {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
      return NULL;
    full = xasprintf("%s/%s", cwd, root);
  }
  /* rebuild it component by component */
  char *out = xmalloc(strlen(full) + 2);
  size_t n = 0;
  for (char *p = full; *p;) {
    while (*p == '/')
      p++;
    char *end = p + strcspn(p, "/");
    size_t len = (size_t)(end - p);
    if (len == 0 || (len == 1 && p[0] == '.')) {
      /* nothing */
    } else if (len == 2 && p[0] == '.' && p[1] == '.') {
      while (n > 0 && out[n - 1] != '/')
        n--;
      if (n > 0)
        n--; /* the '/' before it */
    } else {
      out[n++] = '/';
      memcpy(out + n, p, len);
      n += len;
    }
    p = end;
  }
  if (n == 0)
    out[n++] = '/';
  out[n] = 0;
  free(full);
  return out;
}

/* *PATH made relative to ROOT when it lies under it */
static void relative(char **path, const char *root)
{
  if (!*path)
    return;
  size_t n = strlen(root);
  const char *rest;
  if (strcmp(root, "/") == 0)
    rest = (*path)[0] == '/' ? *path + 1 : NULL;
  else
    rest = strncmp(*path, root, n) == 0 && (*path)[n] == '/' ? *path + n + 1
                                                             : NULL;
  if (!rest)
    return;
  while (*rest == '/')
    rest++;
  if (!*rest)
    return;
  char *r = xstrdup(rest);
  free(*path);
  *path = r;
}

static void location_relative(struct location *l, void *root)
{
  relative(&l->file, root);
  relative(&l->module, root);
  for (size_t i = 0; i < l->ncallers; i++)
    location_relative(&l->callers[i], root);
}

void findings_each_location(struct findings *fs,
                            void (*fn)(struct location *, void *), void *arg)
{
  for (size_t i = 0; i < fs->n; i++) {
    struct finding *f = &fs->v[i];
    fn(&f->loc, arg);
    for (size_t r = 0; r < f->nrelated; r++)
      fn(&f->related[r].loc, arg);
  }
}

void findings_relative_to(struct findings *fs, const char *root)
{
  findings_each_location(fs, location_relative, (void *)root);
}

/* S and its terminating NUL ("" for NULL), so fields cannot run together */
static uint64_t fnv_str(uint64_t h, const char *s)
{
  s = s ? s : "";
  return cl_fnv1a(h, s, strlen(s) + 1);
}

static uint64_t fnv_loc(uint64_t h, const struct location *l)
{
  char line[24];
  h = cl_fnv1a(h, "\x1e", 1);
  if (l->file)
    h = fnv_str(h, l->file[0] == '/' ? path_base(l->file) : l->file);
  else
    h = fnv_str(h, NULL);
  snprintf(line, sizeof line, "%d", l->line > 0 ? l->line : 0);
  h = fnv_str(h, line);
  h = fnv_str(h, l->function);
  return fnv_str(h, l->file || !l->module ? NULL : path_base(l->module));
}

void findings_fingerprint(struct findings *fs)
{
  for (size_t i = 0; i < fs->n; i++) {
    struct finding *f = &fs->v[i];
    uint64_t h = fnv_str(CL_FNV_OFFSET, "cudalens-fingerprint/1");
    h = fnv_str(h, f->kind);
    h = fnv_loc(h, &f->loc);
    for (size_t r = 0; r < f->nrelated; r++)
      if (!f->related[r].detail)
        h = fnv_loc(h, &f->related[r].loc);
    snprintf(f->fingerprint, sizeof f->fingerprint, "%016llx",
             (unsigned long long)h);
  }
}

int findings_max_severity(const struct findings *fs)
{
  int m = -1;
  for (size_t i = 0; i < fs->n; i++)
    if ((int)fs->v[i].severity > m)
      m = (int)fs->v[i].severity;
  return m;
}

/* suppress.c - suppression files, --disable, and the matching of findings
 * against them (suppress.h); --gen-suppressions writes entries in the
 * format read here. */
#define _GNU_SOURCE /* getline */
#include "checks/suppress.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static const char *const field_names[SUPP_FIELD_COUNT] = {
    [SUPP_FUNCTION] = "function", [SUPP_FILE] = "file",
    [SUPP_KERNEL] = "kernel", [SUPP_MODULE] = "module",
    [SUPP_FINGERPRINT] = "fingerprint", [SUPP_AT] = "at"};

#define DISABLE_SOURCE "--disable"

void suppressions_init(struct suppressions *s)
{
  memset(s, 0, sizeof *s);
}

static void entry_free(struct supp_entry *e)
{
  for (int k = 0; k < SUPP_FIELD_COUNT; k++)
    free(e->glob[k]);
  for (size_t i = 0; i < e->nmore_at; i++)
    free(e->more_at[i]);
  free(e->more_at);
}

/* one more at= glob (malloc'd, taken) */
static void add_at(struct supp_entry *e, char *glob)
{
  if (!e->glob[SUPP_AT]) {
    e->glob[SUPP_AT] = glob;
    return;
  }
  e->more_at = xrealloc(e->more_at, (e->nmore_at + 1) * sizeof *e->more_at);
  e->more_at[e->nmore_at++] = glob;
}

void suppressions_free(struct suppressions *s)
{
  for (size_t i = 0; i < s->n; i++)
    entry_free(&s->v[i]);
  free(s->v);
  for (size_t i = 0; i < s->nsources; i++)
    free(s->sources[i]);
  free(s->sources);
  suppressions_init(s);
}

static size_t add_source(struct suppressions *s, const char *name)
{
  GROW(s->sources, s->cap_sources, s->nsources + 1);
  s->sources[s->nsources] = xstrdup(name);
  return s->nsources++;
}

/* the next token of *P (split at blanks not quoted by '\'), NUL-terminated
 * in place; NULL at the end of the line */
static char *next_token(char **p)
{
  char *t = *p;
  while (*t == ' ' || *t == '\t')
    t++;
  if (!*t)
    return NULL;
  char *e = t;
  while (*e && *e != ' ' && *e != '\t') {
    if (*e == '\\' && e[1])
      e++;
    e++;
  }
  if (*e)
    *e++ = 0;
  *p = e;
  return t;
}

/* parse one line (without its newline) into *E; NULL, or what is wrong
 * (malloc'd) */
static char *parse_entry(char *line, struct supp_entry *e)
{
  char *p = line;
  char *kind = next_token(&p);
  if (strcmp(kind, "*") == 0) {
    e->check = -1;
  } else if ((e->check = check_by_kind(kind)) < 0) {
    return xasprintf("no kind of finding named '%s' (try --list-checks)",
                     kind);
  }
  for (char *t; (t = next_token(&p));) {
    char *eq = strchr(t, '=');
    if (!eq)
      return xasprintf("'%s' is not FIELD=GLOB (fields: function, file,"
                       " kernel, module, fingerprint, at)", t);
    *eq = 0;
    int k = 0;
    while (k < SUPP_FIELD_COUNT && strcmp(field_names[k], t) != 0)
      k++;
    if (k == SUPP_FIELD_COUNT)
      return xasprintf("unknown field '%s' (use function, file, kernel,"
                       " module, fingerprint or at)", t);
    if (e->glob[k] && k != SUPP_AT)
      return xasprintf("field '%s' given twice", t);
    if (!eq[1])
      return xasprintf("field '%s' has an empty glob", t);
    for (const char *g = eq + 1; *g; g++)
      if (*g == '\\' && !*++g)
        return xasprintf("field '%s' ends with a lone '\\'", t);
    if (k == SUPP_AT)
      add_at(e, xstrdup(eq + 1));
    else
      e->glob[k] = xstrdup(eq + 1);
  }
  return NULL;
}

int suppressions_load(struct suppressions *s, const char *path, char **err)
{
  unsigned mode = 0;
  int fd = open_regular_file(path, &mode);
  if (fd == OPEN_NOT_REGULAR) {
    *err = xasprintf("%s: is %s, not a suppression file", path,
                     file_type_name(mode));
    return -1;
  }
  FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
  if (!f) {
    *err = xasprintf("%s: %s", path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  size_t source = add_source(s, path);
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int lineno = 0, rc = 0;
  *err = NULL;
  while ((len = getline(&line, &cap, f)) >= 0) {
    lineno++;
    if (strlen(line) != (size_t)len) {
      *err = xasprintf("%s:%d: a NUL byte: not a text file", path, lineno);
      break;
    }
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = 0;
    char *p = line + strspn(line, " \t");
    if (!*p || *p == '#')
      continue;
    struct supp_entry e = {.source = source, .line = lineno};
    char *why = parse_entry(p, &e);
    if (why) {
      entry_free(&e);
      *err = xasprintf("%s:%d: %s", path, lineno, why);
      free(why);
      break;
    }
    GROW(s->v, s->cap, s->n + 1);
    s->v[s->n++] = e;
  }
  if (!*err && ferror(f))
    *err = xasprintf("%s: read error: %s", path, strerror(errno));
  if (*err)
    rc = -1;
  free(line);
  fclose(f);
  return rc;
}

int suppressions_disable(struct suppressions *s, const char *kinds,
                         char **err)
{
  char *copy = xstrdup(kinds), *save = NULL;
  int rc = 0, any = 0;
  for (char *k = strtok_r(copy, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
    int id = check_by_kind(k);
    if (id < 0) {
      *err = xasprintf("--disable: no kind of finding named '%s' (try"
                       " --list-checks)", k);
      rc = -1;
      break;
    }
    s->disabled[id] = true;
    any = 1;
  }
  if (!rc && !any) {
    *err = xasprintf("--disable needs a kind of finding (try --list-checks)");
    rc = -1;
  }
  free(copy);
  s->any_disabled |= any;
  return rc;
}

/* TEXT (a path, or a place "path:line") against GLOB: all of it, or, when
 * GLOB does not start with '/', any end of it that follows a '/' (a glob
 * relative to a checkout matches the same file in every checkout; a glob
 * without '/', the basename) */
static bool path_matches(const char *glob, const char *text)
{
  if (!text)
    return false;
  if (fnmatch(glob, text, 0) == 0)
    return true;
  if (glob[0] == '/')
    return false;
  for (const char *p = strchr(text, '/'); p; p = strchr(p + 1, '/'))
    if (p[1] && fnmatch(glob, p + 1, 0) == 0)
      return true;
  return false;
}

static bool loc_matches(enum supp_field k, const char *glob,
                        const struct location *l)
{
  switch (k) {
  case SUPP_FUNCTION:
    return l->function && fnmatch(glob, l->function, 0) == 0;
  case SUPP_FILE:
    return path_matches(glob, l->file);
  case SUPP_MODULE:
    return path_matches(glob, l->module);
  case SUPP_AT: {
    char buf[4096];
    return path_matches(glob, location_text(buf, sizeof buf, l));
  }
  default:
    return false;
  }
}

/* does one of F's places (its location, its related places) match G? */
static bool some_place_matches(enum supp_field k, const char *g,
                               const struct finding *f)
{
  bool hit = loc_matches(k, g, &f->loc);
  for (size_t r = 0; !hit && r < f->nrelated; r++)
    hit = !f->related[r].detail && loc_matches(k, g, &f->related[r].loc);
  return hit;
}

bool supp_entry_matches(const struct supp_entry *e, const struct finding *f)
{
  if (e->check >= 0 && (enum check_id)e->check != f->check)
    return false;
  for (int k = 0; k < SUPP_FIELD_COUNT; k++) {
    const char *g = e->glob[k];
    if (!g)
      continue;
    bool hit = false;
    if (k == SUPP_KERNEL) {
      for (size_t i = 0; !hit && i < f->nkernels; i++)
        hit = fnmatch(g, f->kernels[i], 0) == 0;
    } else if (k == SUPP_FINGERPRINT) {
      hit = fnmatch(g, f->fingerprint, 0) == 0;
    } else {
      hit = some_place_matches((enum supp_field)k, g, f);
    }
    if (!hit)
      return false;
  }
  for (size_t i = 0; i < e->nmore_at; i++)
    if (!some_place_matches(SUPP_AT, e->more_at[i], f))
      return false;
  return true;
}

void suppressions_apply(const struct suppressions *s, struct findings *fs,
                        struct suppressed *out)
{
  memset(out, 0, sizeof *out);
  findings_init(&out->list);
  out->active = s->n || s->nsources || s->any_disabled;
  /* the files, then "--disable" */
  out->nsources = s->nsources + (s->any_disabled ? 1 : 0);
  const char **names = xcalloc(out->nsources ? out->nsources : 1,
                               sizeof *names);
  for (size_t i = 0; i < s->nsources; i++)
    names[i] = s->sources[i];
  if (s->any_disabled)
    names[s->nsources] = DISABLE_SOURCE;
  out->sources = names;
  out->counts = xcalloc(out->nsources ? out->nsources : 1,
                        sizeof *out->counts);
  size_t kept = 0;
  for (size_t i = 0; i < fs->n; i++) {
    struct finding *f = &fs->v[i];
    char *origin = NULL;
    if (s->disabled[f->check]) {
      origin = xstrdup(DISABLE_SOURCE);
      out->counts[s->nsources]++;
    } else {
      for (size_t e = 0; !origin && e < s->n; e++)
        if (supp_entry_matches(&s->v[e], f)) {
          origin = xasprintf("%s:%d", s->sources[s->v[e].source],
                             s->v[e].line);
          out->counts[s->v[e].source]++;
        }
    }
    if (!origin) {
      fs->v[kept++] = *f;
      continue;
    }
    GROW(out->list.v, out->list.cap, out->list.n + 1);
    GROW(out->origin, out->norigin_cap, out->list.n + 1);
    out->origin[out->list.n] = origin;
    out->list.v[out->list.n++] = *f;
  }
  fs->n = kept;
}

void suppressed_free(struct suppressed *out)
{
  for (size_t i = 0; i < out->list.n; i++)
    free(out->origin[i]);
  free(out->origin);
  findings_free(&out->list);
  free((void *)out->sources);
  free(out->counts);
  memset(out, 0, sizeof *out);
}

/* V as a glob that matches exactly V: fnmatch's special characters and
 * blanks quoted with '\'; line ends and other control characters, which a
 * one-line entry cannot hold, as '?'.  malloc'd. */
static char *glob_quote(const char *v)
{
  char *out = xmalloc(strlen(v) * 2 + 1), *o = out;
  for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
    if (*p < 0x20 || *p == 0x7f) {
      *o++ = '?';
      continue;
    }
    if (strchr("*?[]\\ \t", *p))
      *o++ = '\\';
    *o++ = (char)*p;
  }
  *o = 0;
  return out;
}

static void put_entry(FILE *f, const struct supp_entry *e)
{
  fputs(e->check >= 0 ? check_info((enum check_id)e->check)->kind : "*", f);
  for (int k = 0; k < SUPP_FIELD_COUNT; k++)
    if (e->glob[k])
      fprintf(f, " %s=%s", field_names[k], e->glob[k]);
  for (size_t i = 0; i < e->nmore_at; i++)
    fprintf(f, " at=%s", e->more_at[i]);
  fputc('\n', f);
}

static bool names_kernel(const struct finding *f, const char *name)
{
  for (size_t k = 0; k < f->nkernels; k++)
    if (strcmp(f->kernels[k], name) == 0)
      return true;
  return false;
}

/* PATH relative to BASE when it lies under it (a pointer into PATH) */
static const char *under(const char *path, const char *base)
{
  size_t n = base ? strlen(base) : 0;
  if (!path || !n || path[0] != '/')
    return path;
  if (n == 1 && base[0] == '/')
    return path[1] ? path + 1 : path;
  if (strncmp(path, base, n) == 0 && path[n] == '/' && path[n + 1])
    return path + n + 1;
  return path;
}

/* the place L as the text report shows it, its file relative to BASE */
static const char *place_text(char *buf, size_t len, const struct location *l,
                              const char *base)
{
  struct location rel = *l;
  rel.file = (char *)under(l->file, base);
  return location_text(buf, len, &rel);
}

/* the narrow entry: the kind and every place of the finding */
static void narrow_entry(struct supp_entry *e, const struct finding *x,
                         const char *base)
{
  char buf[4096];
  const struct location *places[1 + 64];
  size_t n = 0;
  if (x->loc.file || x->loc.module)
    places[n++] = &x->loc;
  for (size_t r = 0; r < x->nrelated && n < sizeof places / sizeof *places;
       r++) {
    const struct location *l = &x->related[r].loc;
    if (!x->related[r].detail && (l->file || l->module))
      places[n++] = l;
  }
  for (size_t i = 0; i < n; i++) {
    char *g = glob_quote(place_text(buf, sizeof buf, places[i], base));
    bool again = false; /* the same place twice: once is enough */
    if (e->glob[SUPP_AT] && strcmp(e->glob[SUPP_AT], g) == 0)
      again = true;
    for (size_t j = 0; !again && j < e->nmore_at; j++)
      again = strcmp(e->more_at[j], g) == 0;
    if (again)
      free(g);
    else
      add_at(e, g);
  }
  if (!n) /* no place known: the fingerprint alone */
    e->glob[SUPP_FINGERPRINT] = xstrdup(x->fingerprint);
}

void suppressions_generate(FILE *f, const struct findings *fs, bool broad,
                           const char *base)
{
  for (size_t i = 0; i < fs->n; i++) {
    const struct finding *x = &fs->v[i];
    struct supp_entry e = {.check = (int)x->check};
    char here[4096], there[4096];
    location_text(here, sizeof here, &x->loc);
    if (!broad) {
      narrow_entry(&e, x, base);
    } else {
      if (x->loc.function)
        e.glob[SUPP_FUNCTION] = glob_quote(x->loc.function);
      if (x->loc.file)
        e.glob[SUPP_FILE] = glob_quote(under(x->loc.file, base));
      else if (x->loc.module)
        e.glob[SUPP_MODULE] = glob_quote(under(x->loc.module, base));
    }
    /* made more precise while it matches another finding that it can tell
     * apart: by the fingerprint (which names the related places too), then
     * by the place as shown (the line, or the offset in the object), then
     * by its first kernel */
    for (size_t j = 0; j < fs->n; j++) {
      const struct finding *y = &fs->v[j];
      if (j == i || !supp_entry_matches(&e, y))
        continue;
      if (broad && !e.glob[SUPP_FINGERPRINT] &&
          strcmp(y->fingerprint, x->fingerprint) != 0)
        e.glob[SUPP_FINGERPRINT] = xstrdup(x->fingerprint);
      else if (broad && !e.glob[SUPP_AT] &&
               strcmp(location_text(there, sizeof there, &y->loc), here) != 0)
        add_at(&e, glob_quote(place_text(there, sizeof there, &x->loc, base)));
      else if (!e.glob[SUPP_KERNEL] && x->nkernels &&
               !names_kernel(y, x->kernels[0]))
        e.glob[SUPP_KERNEL] = glob_quote(x->kernels[0]);
      else
        continue; /* the same kind at the same places */
      j = (size_t)-1; /* again, from the first */
    }
    fputs("# ", f);
    fput_escaped(f, place_text(here, sizeof here, &x->loc, base));
    fprintf(f, ": %s: [%s]\n", severity_name(x->severity), x->kind);
    size_t also = 0;
    for (size_t j = 0; j < fs->n; j++)
      also += j != i && supp_entry_matches(&e, &fs->v[j]);
    if (also)
      fprintf(f, "# (it also matches %zu other finding%s of this kind at the"
                 " same places)\n", also, also == 1 ? "" : "s");
    put_entry(f, &e);
    entry_free(&e);
  }
}

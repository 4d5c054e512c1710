/* reduced.c - the per-rank reduced results of reduced.h: written after a
 * recording is analyzed, read back in place of the recording. */
#include "config.h"

#include "reduced.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/find_collectives.h"
#include "cudalens/fnv.h"
#include "checks/findings.h"
#include "output/json.h"
#include "output/output.h"
#include "util.h"

/* ---- names ------------------------------------------------------------- */

static bool ends_with(const char *s, const char *tail)
{
  size_t n = strlen(s), t = strlen(tail);
  return n > t && strcmp(s + n - t, tail) == 0;
}

char *reduced_path(const char *recording)
{
  size_t n = strlen(recording);
  if (ends_with(recording, ".db"))
    return xasprintf("%.*s" REDUCED_EXT, (int)(n - 3), recording);
  return xasprintf("%s" REDUCED_EXT, recording);
}

bool reduced_named(const char *path)
{
  return ends_with(path, REDUCED_EXT);
}

char *reduced_recording(const char *reduced)
{
  size_t n = strlen(reduced) - (reduced_named(reduced) ? strlen(REDUCED_EXT) : 0);
  return xasprintf("%.*s.db", (int)n, reduced);
}

/* the recording's stamp: size and mtime (ns) of it and of its -wal */
struct stamp {
  long long size, mtime, wsize, wmtime;
};

static int stamp_of(const char *recording, struct stamp *s)
{
  struct stat st;
  if (stat(recording, &st) != 0)
    return -1;
  s->size = (long long)st.st_size;
  s->mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  char *wal = xasprintf("%s-wal", recording);
  if (stat(wal, &st) == 0) {
    s->wsize = (long long)st.st_size;
    s->wmtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  } else {
    s->wsize = s->wmtime = -1;
  }
  free(wal);
  return 0;
}


/* ---- writing ----------------------------------------------------------- */

static void put_str(FILE *f, const char *s)
{
  fputc(' ', f);
  if (!s) {
    fputc('-', f);
    return;
  }
  fputc('=', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p < 0x21 || *p == 0x7f || *p == '%')
      fprintf(f, "%%%02X", *p);
    else
      fputc(*p, f);
}

static void put_loc(FILE *f, const char *tag, const struct location *l,
                    int depth)
{
  fputs(tag, f);
  put_str(f, l->file);
  fprintf(f, " %d", l->line);
  put_str(f, l->function);
  put_str(f, l->module);
  size_t ncallers = depth < 8 ? l->ncallers : 0;
  fprintf(f, " %" PRIu64 " %d %d %" PRId64 " %" PRId64 " %d %d %zu\n",
          l->offset, l->has_stack, l->from_python, l->stack_id, l->pystack_id,
          l->stack_frame, l->py_frame, ncallers);
  for (size_t i = 0; i < ncallers; i++)
    put_loc(f, "loc", &l->callers[i], depth + 1);
}

/* the summary as output FN renders it, as a string */
static char *rendered(void (*fn)(FILE *, const struct summary *),
                      const struct summary *s)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m)
    fail_oom();
  fn(m, s);
  if (fclose(m) != 0)
    fail_oom();
  return buf;
}

static void put_finding(FILE *f, const struct finding *x)
{
  fputs("finding", f);
  put_str(f, x->kind);
  fprintf(f, " %d %" PRIu64 " %" PRId64, (int)x->severity, x->count,
          x->cost_ns);
  put_str(f, x->fingerprint);
  put_str(f, x->message);
  put_str(f, x->fix);
  fputc('\n', f);
  put_loc(f, "loc", &x->loc, 0);
  for (size_t e = 0; e < x->nextra; e++) {
    fputs("extra", f);
    put_str(f, x->extra[e].name);
    fprintf(f, " %" PRId64 " %d\n", x->extra[e].value, x->extra[e].is_flag);
  }
  for (size_t k = 0; k < x->nkernels; k++) {
    fputs("kernel", f);
    put_str(f, x->kernels[k]);
    fputc('\n', f);
  }
  for (size_t k = 0; k < x->nops && k < FINDING_MAX_OPS; k++)
    fprintf(f, "op %" PRId64 "\n", x->ops[k]);
  for (size_t k = 0; k < x->nrelated; k++) {
    fprintf(f, "related %d", x->related[k].detail);
    put_str(f, x->related[k].message);
    fputc('\n', f);
    put_loc(f, "loc", &x->related[k].loc, 0);
  }
}

int reduced_write(const char *out, const struct recording *r, size_t stack,
                  char **err)
{
  struct stamp s;
  if (stamp_of(r->path, &s) < 0) {
    *err = xasprintf("%s: %s", r->path, strerror(errno));
    return -1;
  }
  char *body = NULL;
  size_t blen = 0;
  FILE *f = open_memstream(&body, &blen);
  if (!f)
    fail_oom();
  fprintf(f, REDUCED_FORMAT " %d\nreport", REDUCED_VERSION);
  put_str(f, PACKAGE_VERSION);
  fprintf(f, "\nstack %zu\nsource %lld %lld %lld %lld\nprocess %" PRId64,
          stack, s.size, s.mtime, s.wsize, s.wmtime, r->sum.proc.rank);
  put_str(f, r->sum.proc.pid);
  char *text = rendered(output_text_summary, &r->sum);
  char *json = rendered(output_json_summary, &r->sum);
  fputs("\ntext", f);
  put_str(f, text);
  fputs("\njson", f);
  put_str(f, json);
  fputc('\n', f);
  free(text);
  free(json);
  for (size_t i = 0; i < r->fs.n; i++)
    put_finding(f, &r->fs.v[i]);
  const struct coll_log *l = r->colls;
  for (size_t i = 0; l && i < l->nsites; i++)
    put_loc(f, "site", &l->sites[i], 0);
  for (size_t i = 0; l && i < l->n; i++) {
    const struct coll *c = &l->v[i];
    fprintf(f, "coll %" PRId64 " %" PRId64 " %" PRId32 " %" PRId32, c->seq,
            c->comm_id, c->rank, c->nranks);
    put_str(f, c->kind);
    fprintf(f, " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %zu\n",
            c->count, c->datatype, c->root, c->redop, c->site);
  }
  if (fclose(f) != 0)
    fail_oom();
  char *tmp = xasprintf("%s.tmp%ld", out, (long)getpid());
  if (!(f = fopen(tmp, "w"))) {
    *err = xasprintf("%s: %s", out, strerror(errno));
    free(tmp);
    free(body);
    return -1;
  }
  fwrite(body, 1, blen, f);
  fprintf(f, "end %016" PRIx64 "\n", cl_fnv1a(CL_FNV_OFFSET, body, blen));
  free(body);
  int bad = ferror(f);
  if (fflush(f) != 0 || fsync(fileno(f)) != 0)
    bad = 1;
  int saved = errno;
  if (fclose(f) != 0 && !bad)
    bad = 1, saved = errno;
  if (!bad && rename(tmp, out) != 0)
    bad = 1, saved = errno;
  if (bad) {
    *err = xasprintf("%s: write error: %s", out, strerror(saved ? saved : EIO));
    unlink(tmp);
    free(tmp);
    return -1;
  }
  free(tmp);
  return 0;
}

/* ---- reading ----------------------------------------------------------- */

struct reader {
  FILE *f;
  char *line;   /* the current line, split in place */
  size_t cap;
  char *p;      /* the next field */
  long lineno;
  const char *why; /* the first problem (a static string) */
  uint64_t sum, sum_before; /* checksum of the lines read, before this one */
  /* reduced_read_window: only the collectives of COMM at places [LO, HI)
   * are kept; PLACES counts each rank's (RANKS[i]) */
  bool window;
  int64_t comm;
  size_t lo, hi;
  int32_t *ranks;
  size_t *places, nranks, cap_ranks;
};

/* the place of a collective of rank RANK of the window's communicator */
static size_t window_place(struct reader *rd, int32_t rank)
{
  size_t i = 0;
  while (i < rd->nranks && rd->ranks[i] != rank)
    i++;
  if (i == rd->nranks) {
    size_t cap = rd->cap_ranks;
    GROW(rd->ranks, cap, i + 1);
    GROW(rd->places, rd->cap_ranks, i + 1);
    rd->ranks[i] = rank;
    rd->places[i] = 0;
    rd->nranks++;
  }
  return rd->places[i]++;
}

/* the next line; its tag (first field), NULL at the end of the file */
static const char *next_line(struct reader *rd)
{
  ssize_t n = getline(&rd->line, &rd->cap, rd->f);
  if (n <= 0)
    return NULL;
  if (rd->line[n - 1] != '\n') {
    rd->why = "a truncated line";
    return NULL;
  }
  rd->sum_before = rd->sum;
  rd->sum = cl_fnv1a(rd->sum, rd->line, (size_t)n);
  rd->line[n - 1] = '\0';
  rd->lineno++;
  rd->p = rd->line;
  char *tag = rd->p;
  char *sp = strchr(rd->p, ' ');
  if (sp) {
    *sp = '\0';
    rd->p = sp + 1;
  } else {
    rd->p = NULL;
  }
  return tag;
}

static char *field(struct reader *rd)
{
  if (!rd->p) {
    if (!rd->why)
      rd->why = "a field is missing";
    return NULL;
  }
  char *f = rd->p;
  char *sp = strchr(rd->p, ' ');
  if (sp) {
    *sp = '\0';
    rd->p = sp + 1;
  } else {
    rd->p = NULL;
  }
  return f;
}

static void line_done(struct reader *rd)
{
  if (rd->p && !rd->why)
    rd->why = "a line has extra fields";
}

static int hexval(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* a string field: malloc'd, NULL for "-" (and on error, with why set) */
static char *get_str(struct reader *rd)
{
  char *f = field(rd);
  if (!f || strcmp(f, "-") == 0)
    return NULL;
  if (*f != '=') {
    if (!rd->why)
      rd->why = "a malformed string";
    return NULL;
  }
  f++;
  char *out = xmalloc(strlen(f) + 1), *o = out;
  for (; *f; f++) {
    if (*f != '%') {
      *o++ = *f;
      continue;
    }
    int hi = hexval(f[1]), lo = hi < 0 ? -1 : hexval(f[2]);
    if (lo < 0 || (hi == 0 && lo == 0)) {
      if (!rd->why)
        rd->why = "a malformed string";
      free(out);
      return NULL;
    }
    *o++ = (char)(hi * 16 + lo);
    f += 2;
  }
  *o = '\0';
  return out;
}

static int64_t get_int(struct reader *rd, int64_t lo, int64_t hi)
{
  char *f = field(rd);
  if (!f)
    return 0;
  char *end;
  errno = 0;
  long long v = strtoll(f, &end, 10);
  if (!*f || *end || errno || v < lo || v > hi) {
    if (!rd->why)
      rd->why = "a malformed number";
    return 0;
  }
  return v;
}

static uint64_t get_uint(struct reader *rd)
{
  char *f = field(rd);
  if (!f)
    return 0;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(f, &end, 10);
  if (!*f || *end || errno || *f == '-') {
    if (!rd->why)
      rd->why = "a malformed number";
    return 0;
  }
  return v;
}

/* the fields of a loc (or site) line after its tag, then its callers */
static void get_loc_fields(struct reader *rd, struct location *l, int depth)
{
  memset(l, 0, sizeof *l);
  l->file = get_str(rd);
  l->line = (int)get_int(rd, INT32_MIN, INT32_MAX);
  l->function = get_str(rd);
  l->module = get_str(rd);
  l->offset = get_uint(rd);
  l->has_stack = (int)get_int(rd, 0, 1);
  l->from_python = (int)get_int(rd, 0, 1);
  l->stack_id = get_int(rd, INT64_MIN, INT64_MAX);
  l->pystack_id = get_int(rd, INT64_MIN, INT64_MAX);
  l->stack_frame = (int)get_int(rd, INT32_MIN, INT32_MAX);
  l->py_frame = (int)get_int(rd, INT32_MIN, INT32_MAX);
  size_t n = (size_t)get_int(rd, 0, depth < 8 ? 1000 : 0);
  line_done(rd);
  if (rd->why || !n)
    return;
  l->callers = xcalloc(n, sizeof *l->callers);
  for (size_t i = 0; i < n && !rd->why; i++) {
    const char *tag = next_line(rd);
    if (!tag || strcmp(tag, "loc") != 0) {
      if (!rd->why)
        rd->why = "a caller is missing";
      break;
    }
    get_loc_fields(rd, &l->callers[i], depth + 1);
    l->ncallers = i + 1;
  }
}

/* a loc line: the place of what came before */
static void get_loc(struct reader *rd, struct location *l)
{
  const char *tag = next_line(rd);
  if (!tag || strcmp(tag, "loc") != 0) {
    memset(l, 0, sizeof *l);
    if (!rd->why)
      rd->why = "a place is missing";
    return;
  }
  get_loc_fields(rd, l, 0);
}

/* the rest of a finding line, and its loc */
static void get_finding(struct reader *rd, struct findings *fs)
{
  char *kind = get_str(rd);
  int id = kind ? check_by_kind(kind) : -1;
  if (id < 0 && !rd->why)
    rd->why = "a finding of an unknown kind";
  GROW(fs->v, fs->cap, fs->n + 1);
  struct finding *f = &fs->v[fs->n++];
  memset(f, 0, sizeof *f);
  f->check = id < 0 ? 0 : (enum check_id)id;
  f->kind = kind;
  f->severity = (enum severity)get_int(rd, 0, SEV_ERROR);
  f->count = get_uint(rd);
  f->cost_ns = get_int(rd, INT64_MIN, INT64_MAX);
  char *fp = get_str(rd);
  if (fp && strlen(fp) == sizeof f->fingerprint - 1)
    memcpy(f->fingerprint, fp, sizeof f->fingerprint);
  else if (!rd->why)
    rd->why = "a malformed fingerprint";
  free(fp);
  f->message = get_str(rd);
  f->fix = get_str(rd);
  line_done(rd);
  if (!f->message && !rd->why)
    rd->why = "a finding without a message";
  if (!rd->why)
    get_loc(rd, &f->loc);
}

/* Is S a summary as the text and JSON outputs render it: valid UTF-8
 * without control characters but newlines?  Those outputs escape the rest;
 * a summary holding one was not written by --reduce, and printed as read it
 * would reach the terminal raw (the fuzzer's merge runs found it). */
static bool rendered_text(const char *s)
{
  while (*s) {
    int n = utf8_len(s);
    const unsigned char *u = (const unsigned char *)s;
    if (!n || (n == 1 && ((*u < 0x20 && *u != '\n') || *u == 0x7f)) ||
        (n == 2 && u[0] == 0xc2 && u[1] < 0xa0))
      return false;
    s += n;
  }
  return true;
}

static struct finding *last_finding(struct reader *rd, struct findings *fs)
{
  if (!fs->n && !rd->why)
    rd->why = "a line of a finding before any finding";
  return fs->n ? &fs->v[fs->n - 1] : NULL;
}

/* the body of the file after its header lines */
static void get_body(struct reader *rd, struct recording *r)
{
  const char *tag;
  bool ended = false, text = false, json = false;
  struct coll_log *l = r->colls;
  while (!rd->why && (tag = next_line(rd))) {
    if (ended) {
      rd->why = "lines after the end";
    } else if (!strcmp(tag, "end")) {
      char *sum = field(rd), want[17];
      line_done(rd);
      snprintf(want, sizeof want, "%016" PRIx64, rd->sum_before);
      if (!rd->why && sum && strcmp(sum, want) != 0)
        rd->why = "its checksum does not match (the file was changed)";
      ended = true;
    } else if (!strcmp(tag, "text") && !text) {
      r->text_summary = get_str(rd);
      line_done(rd);
      text = r->text_summary != NULL;
      if (text && !rendered_text(r->text_summary) && !rd->why)
        rd->why = "a summary with control characters or invalid UTF-8";
    } else if (!strcmp(tag, "json") && !json) {
      r->json_summary = get_str(rd);
      line_done(rd);
      json = r->json_summary != NULL;
      if (json && !rendered_text(r->json_summary) && !rd->why)
        rd->why = "a summary with control characters or invalid UTF-8";
      /* spliced into the JSON report as read (json_splice) */
      if (json && !json_well_formed(r->json_summary, true) && !rd->why)
        rd->why = "a JSON summary that is not JSON";
    } else if (!strcmp(tag, "finding")) {
      get_finding(rd, &r->fs);
    } else if (!strcmp(tag, "extra")) {
      struct finding *f = last_finding(rd, &r->fs);
      char *name = get_str(rd);
      int64_t v = get_int(rd, INT64_MIN, INT64_MAX);
      int flag = (int)get_int(rd, 0, 1);
      line_done(rd);
      if (f && name && !rd->why) {
        if (flag)
          finding_set_flag(f, name, v != 0);
        else
          finding_set_extra(f, name, v);
      } else if (!rd->why) {
        rd->why = "an extra number without a name";
      }
      free(name);
    } else if (!strcmp(tag, "kernel")) {
      struct finding *f = last_finding(rd, &r->fs);
      char *name = get_str(rd);
      line_done(rd);
      if (f && name && !rd->why) {
        GROW(f->kernels, f->cap_kernels, f->nkernels + 1);
        f->kernels[f->nkernels++] = name;
      } else {
        free(name);
      }
    } else if (!strcmp(tag, "op")) {
      struct finding *f = last_finding(rd, &r->fs);
      int64_t seq = get_int(rd, INT64_MIN, INT64_MAX);
      line_done(rd);
      if (f && !rd->why)
        finding_add_op(f, seq);
    } else if (!strcmp(tag, "related")) {
      struct finding *f = last_finding(rd, &r->fs);
      int detail = (int)get_int(rd, 0, 1);
      char *msg = get_str(rd);
      line_done(rd);
      if (!f || rd->why) {
        free(msg);
        continue;
      }
      GROW(f->related, f->cap_related, f->nrelated + 1);
      struct related *x = &f->related[f->nrelated++];
      memset(x, 0, sizeof *x);
      x->message = msg ? msg : xstrdup("");
      x->detail = detail;
      get_loc(rd, &x->loc);
    } else if (!strcmp(tag, "site")) {
      GROW(l->sites, l->capsites, l->nsites + 1);
      get_loc_fields(rd, &l->sites[l->nsites++], 0);
    } else if (!strcmp(tag, "coll")) {
      GROW(l->v, l->cap, l->n + 1);
      struct coll *c = &l->v[l->n++];
      memset(c, 0, sizeof *c);
      c->seq = get_int(rd, INT64_MIN, INT64_MAX);
      c->comm_id = get_int(rd, INT64_MIN, INT64_MAX);
      c->rank = (int32_t)get_int(rd, INT32_MIN, INT32_MAX);
      c->nranks = (int32_t)get_int(rd, INT32_MIN, INT32_MAX);
      c->kind = get_str(rd);
      c->count = get_int(rd, INT64_MIN, INT64_MAX);
      c->datatype = get_int(rd, INT64_MIN, INT64_MAX);
      c->root = get_int(rd, INT64_MIN, INT64_MAX);
      c->redop = get_int(rd, INT64_MIN, INT64_MAX);
      c->site = (size_t)get_int(rd, 0, INT64_MAX);
      line_done(rd);
      if (!rd->why && (!c->kind || c->site >= l->nsites))
        rd->why = "a collective without its kind or call site";
      if (!c->kind)
        c->kind = xstrdup("");
      if (rd->window) { /* one of the window, or none */
        size_t place = c->comm_id == rd->comm ? window_place(rd, c->rank) : 0;
        if (c->comm_id != rd->comm || place < rd->lo || place >= rd->hi) {
          free(c->kind);
          l->n--;
        } else {
          c->pos = place;
        }
      }
    } else {
      rd->why = "an unknown line";
    }
  }
  if (!rd->why && (!ended || !text || !json))
    rd->why = "the file is incomplete (no end, or no summary)";
}

static int read_file(const char *path, const char *recording, size_t stack,
                     struct recording *r, struct reader *win, char **err);

int reduced_read(const char *path, const char *recording, size_t stack,
                 struct recording *r, char **err)
{
  return read_file(path, recording, stack, r, NULL, err);
}

int reduced_read_window(const char *path, size_t stack, int64_t comm_id,
                        size_t lo, size_t hi, struct coll_log *l, char **err)
{
  struct reader win = {.window = true, .comm = comm_id, .lo = lo, .hi = hi};
  struct recording got;
  memset(&got, 0, sizeof got);
  int rc = read_file(path, NULL, stack, &got, &win, err);
  free(win.ranks);
  free(win.places);
  if (rc < 0)
    return -1;
  collectives_drop_calls(l);
  l->v = got.colls->v;
  l->n = got.colls->n;
  l->cap = got.colls->cap;
  l->sites = got.colls->sites;
  l->nsites = got.colls->nsites;
  l->capsites = got.colls->capsites;
  got.colls->v = NULL;
  got.colls->sites = NULL;
  got.colls->n = got.colls->nsites = 0;
  collectives_free(got.colls);
  findings_free(&got.fs);
  summary_free(&got.sum);
  free(got.text_summary);
  free(got.json_summary);
  return 0;
}

static int read_file(const char *path, const char *recording, size_t stack,
                     struct recording *r, struct reader *win, char **err)
{
  unsigned mode = 0;
  int fd = open_regular_file(path, &mode);
  if (fd == OPEN_NOT_REGULAR) {
    *err = xasprintf("%s: %s, not a reduced result", path,
                     file_type_name(mode));
    return -1;
  }
  FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
  if (!f) {
    *err = xasprintf("%s: %s", path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  *err = NULL;
  struct reader rd = {.f = f, .sum = CL_FNV_OFFSET};
  if (win) {
    rd.window = true;
    rd.comm = win->comm;
    rd.lo = win->lo;
    rd.hi = win->hi;
  }
  struct recording got;
  memset(&got, 0, sizeof got);
  got.sum.proc.rank = -1;
  findings_init(&got.fs);
  got.colls = xcalloc(1, sizeof *got.colls);
  const char *tag = next_line(&rd);
  char *ver = NULL;
  if (!tag || strcmp(tag, REDUCED_FORMAT) != 0 ||
      get_int(&rd, 0, INT32_MAX) != REDUCED_VERSION || rd.why) {
    *err = xasprintf("%s: not a reduced result of version %d (cudalens-report"
                     " --reduce writes them)", path, REDUCED_VERSION);
    goto out;
  }
  line_done(&rd);
  struct stamp want = {0}, have;
  long long st_ = -1;
  if (!rd.why && (tag = next_line(&rd)) && !strcmp(tag, "report")) {
    ver = get_str(&rd);
    line_done(&rd);
  }
  if (!rd.why && (tag = next_line(&rd)) && !strcmp(tag, "stack")) {
    st_ = get_int(&rd, 1, 1000);
    line_done(&rd);
  }
  if (!rd.why && (tag = next_line(&rd)) && !strcmp(tag, "source")) {
    want.size = get_int(&rd, INT64_MIN, INT64_MAX);
    want.mtime = get_int(&rd, INT64_MIN, INT64_MAX);
    want.wsize = get_int(&rd, INT64_MIN, INT64_MAX);
    want.wmtime = get_int(&rd, INT64_MIN, INT64_MAX);
    line_done(&rd);
  } else if (!rd.why) {
    rd.why = "its header is incomplete";
  }
  if (!rd.why && (tag = next_line(&rd)) && !strcmp(tag, "process")) {
    got.sum.proc.rank = get_int(&rd, -1, INT64_MAX);
    got.sum.proc.pid = get_str(&rd);
    line_done(&rd);
  } else if (!rd.why) {
    rd.why = "its header is incomplete";
  }
  if (rd.why) {
    *err = xasprintf("%s: line %ld: %s", path, rd.lineno, rd.why);
    goto out;
  }
  if (!ver || strcmp(ver, PACKAGE_VERSION) != 0) {
    *err = xasprintf("%s: made by cudalens-report %s, not this one (%s)", path,
                     ver ? ver : "?", PACKAGE_VERSION);
    goto out;
  }
  if ((size_t)st_ != stack) {
    *err = xasprintf("%s: made with --stack=%lld, not --stack=%zu", path, st_,
                     stack);
    goto out;
  }
  if (recording && (stamp_of(recording, &have) < 0 || have.size != want.size ||
                    have.mtime != want.mtime || have.wsize != want.wsize ||
                    have.wmtime != want.wmtime)) {
    *err = xasprintf("%s: stale: its recording changed since it was made",
                     path);
    goto out;
  }
  get_body(&rd, &got);
  if (rd.why)
    *err = xasprintf("%s: line %ld: %s", path, rd.lineno, rd.why);

out:
  if (win) { /* its counts, for the caller to free */
    win->ranks = rd.ranks;
    win->places = rd.places;
  } else {
    free(rd.ranks);
    free(rd.places);
  }
  free(ver);
  free(rd.line);
  fclose(f);
  if (*err) {
    findings_free(&got.fs);
    collectives_free(got.colls);
    summary_free(&got.sum);
    free(got.text_summary);
    free(got.json_summary);
    return -1;
  }
  char *keep = r->path, *keep_reduced = r->reduced; /* the caller's */
  *r = got;
  r->path = keep;
  r->reduced = keep_reduced;
  return 0;
}

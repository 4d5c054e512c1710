/* recordings.c - the recordings of recordings.h: folders expanded, names
 * checked for duplicates, and the report order. */
#include "recordings.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reduced.h"
#include "util.h"

struct paths {
  char **v;
  size_t n, cap;
};

static void add(struct paths *p, char *path)
{
  GROW(p->v, p->cap, p->n + 1);
  p->v[p->n++] = path;
}

static int ends_with_db(const char *name)
{
  size_t n = strlen(name);
  return n > 3 && name[0] != '.' && strcmp(name + n - 3, ".db") == 0;
}

/* a reduced result (reduced.h) in a folder whose recording is not there:
 * it stands for it (the reduced results of a job gathered in one place) */
static int lone_reduced(const char *dir, size_t len, const char *name)
{
  if (name[0] == '.' || !reduced_named(name))
    return 0;
  char *path = xasprintf("%.*s/%s", (int)len, dir, name);
  char *rec = reduced_recording(path);
  struct stat st;
  int lone = stat(rec, &st) != 0;
  free(rec);
  free(path);
  return lone;
}

/* A stub: an empty file with nothing in its WAL (-wal) either, which a
 * process of an older cudalens left when it ended before its recording had
 * a schema.  No recording at all, unlike one that ended abruptly; a file
 * with anything in it that is no recording is an error (multiproc.test). */
static int is_stub(const char *path, const struct stat *st)
{
  if (st->st_size != 0)
    return 0;
  char *wal = xasprintf("%s-wal", path);
  struct stat ws;
  int stub = stat(wal, &ws) != 0 || !S_ISREG(ws.st_mode) || ws.st_size == 0;
  free(wal);
  return stub;
}

/* DIR's recordings, as DIR/NAME ("DIR/" and "DIR" give the same names);
 * stubs are skipped with a note (issue 24: one stub made the report of a
 * whole multi-process run fail) */
static void add_folder(struct paths *p, const char *dir, int reduced_too)
{
  DIR *d = opendir(dir);
  if (!d)
    fatal("%s: %s", dir, strerror(errno));
  size_t len = strlen(dir);
  while (len > 1 && dir[len - 1] == '/')
    len--;
  size_t before = p->n;
  struct dirent *e;
  errno = 0;
  while ((e = readdir(d))) {
    if (!ends_with_db(e->d_name) &&
        !(reduced_too && lone_reduced(dir, len, e->d_name)))
      continue;
    char *path = xasprintf("%.*s%s%s", (int)len, dir,
                           dir[len - 1] == '/' ? "" : "/", e->d_name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && is_stub(path, &st)) {
      fputs("cudalens-report: note: ", stderr);
      fput_escaped(stderr, path);
      fputs(": skipped: an empty file, not a recording (its process ended "
            "before the recording was created)\n", stderr);
      free(path);
    } else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      add(p, path);
    } else {
      free(path);
    }
    errno = 0;
  }
  int err = errno;
  closedir(d);
  if (err)
    fatal("%s: %s", dir, strerror(err));
  if (p->n == before)
    fatal("%s: no recordings in this folder (no *.db files)", dir);
}

static int cmp_path(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

char **recordings_expand(char *const *args, size_t nargs, int reduced_too,
                         size_t *n)
{
  struct paths p = {0};
  for (size_t i = 0; i < nargs; i++) {
    struct stat st;
    if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode))
      add_folder(&p, args[i], reduced_too);
    else
      add(&p, xstrdup(args[i]));
  }
  qsort(p.v, p.n, sizeof *p.v, cmp_path);
  /* the same file twice would count its findings twice */
  struct stat *sts = xcalloc(p.n, sizeof *sts);
  int *ok = xcalloc(p.n, sizeof *ok);
  for (size_t i = 0; i < p.n; i++) {
    ok[i] = stat(p.v[i], &sts[i]) == 0;
    for (size_t k = 0; k < i; k++)
      if (strcmp(p.v[k], p.v[i]) == 0 ||
          (ok[i] && ok[k] && sts[k].st_dev == sts[i].st_dev &&
           sts[k].st_ino == sts[i].st_ino)) {
        if (strcmp(p.v[k], p.v[i]) == 0)
          fatal("%s: named twice", p.v[i]);
        fatal("%s and %s are the same recording", p.v[k], p.v[i]);
      }
    /* a reduced result stands for its recording: not both */
    if (reduced_named(p.v[i])) {
      char *rec = reduced_recording(p.v[i]);
      for (size_t k = 0; k < p.n; k++)
        if (strcmp(p.v[k], rec) == 0)
          fatal("%s and %s are the same recording", p.v[k], p.v[i]);
      free(rec);
    }
  }
  free(sts);
  free(ok);
  *n = p.n;
  return p.v;
}

void recordings_expand_free(char **paths, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(paths[i]);
  free(paths);
}

/* the pid as a number; -1 when it is not one */
static long long pid_number(const char *pid)
{
  if (!pid || !*pid)
    return -1;
  char *end;
  long long v = strtoll(pid, &end, 10);
  return *end || v < 0 ? -1 : v;
}

static int cmp_recording(const void *pa, const void *pb)
{
  const struct recording *a = pa, *b = pb;
  int64_t ra = a->sum.proc.rank, rb = b->sum.proc.rank;
  if ((ra >= 0) != (rb >= 0))
    return ra >= 0 ? -1 : 1;
  if (ra != rb)
    return ra < rb ? -1 : 1;
  long long pa_ = pid_number(a->sum.proc.pid), pb_ = pid_number(b->sum.proc.pid);
  if ((pa_ >= 0) != (pb_ >= 0))
    return pa_ >= 0 ? -1 : 1;
  if (pa_ != pb_)
    return pa_ < pb_ ? -1 : 1;
  return strcmp(a->path, b->path);
}

void recordings_order(struct recording *r, size_t n)
{
  if (n > 1)
    qsort(r, n, sizeof *r, cmp_recording);
}

int recordings_all_ranked(const struct recording *r, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (r[i].sum.proc.rank < 0)
      return 0;
  return n > 0;
}

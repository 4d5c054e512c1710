/* launcher.c - the `cudalens` command: `cudalens [run] [-o PATTERN]
 * [--fail-on=SEV] [--] CMD [ARGS...]` checks PATTERN with the shim's rule
 * (common/outpath.c) and makes its folder, finds libcudalens.so, puts it
 * first in LD_PRELOAD (after AddressSanitizer's runtime where the program
 * needs it: cl_needed_runtime), runs CMD in a child, forwards its exit status
 * (128+signo when it died from a signal) and afterwards tells on stderr which
 * databases the shim wrote, and which processes it did not record in full.
 * The shim reports both by appending lines to the file named by
 * CUDALENS_MANIFEST, a temporary file made here (shim/manifest.c).  With
 * --reduce (or CUDALENS_REDUCE=1) it then runs `cudalens-report --reduce`
 * on them: each recording's reduced result written beside it, where the
 * process ran, once the process is gone (issue 25: in a job of many ranks
 * each launcher, under srun or mpirun, reduces its own).  With
 * --fail-on it then runs cudalens-report on all of them (one report,
 * merged when there are several) and turns its verdict, and what was not
 * recorded, into the exit status.  See cudalens(1).
 *
 * The pure helpers (LD_PRELOAD building, option parsing, status mapping,
 * manifest parsing, shim and report candidates, --fail-on verdicts) are not
 * static so that launcher/launcher_test.c can test them; building with
 * -DCL_LAUNCHER_NO_MAIN leaves out main(). */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudalens/format.h"
#include "cudalens/outpath.h"
#include "launcher.h"

#ifndef CL_SHIM_PATH
#define CL_SHIM_PATH "/usr/local/lib/libcudalens.so"
#endif

#ifndef CL_REPORT_PATH
#define CL_REPORT_PATH "/usr/local/bin/cudalens-report"
#endif

#define SHIM_NAME "libcudalens.so"
#define REPORT_NAME "cudalens-report"

/* ---- pure helpers ---------------------------------------------------------- */

/* the file name of the N-byte path E */
static const char *base_of(const char *e, size_t n, size_t *bl)
{
  const char *base = e;
  for (size_t i = 0; i < n; i++)
    if (e[i] == '/')
      base = e + i + 1;
  *bl = (size_t)(e + n - base);
  return base;
}

bool cl_first_runtime(const char *e, size_t n)
{
  static const char *const runtimes[] = {"libasan.so", "libhwasan.so",
                                         "libclang_rt.asan", "libclang_rt.hwasan"};
  size_t bl;
  const char *base = base_of(e, n, &bl);
  for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes; i++) {
    size_t rl = strlen(runtimes[i]);
    if (bl >= rl && memcmp(base, runtimes[i], rl) == 0)
      return true;
  }
  return false;
}

/* Is this LD_PRELOAD entry a cudalens shim (the same path, or any file named
 * libcudalens.so)?  Two copies would both try to subscribe to CUPTI. */
static bool is_shim_entry(const char *e, size_t n, const char *shim)
{
  size_t sl = strlen(shim);
  if (n == sl && memcmp(e, shim, n) == 0)
    return true;
  size_t bl;
  const char *base = base_of(e, n, &bl);
  return bl == strlen(SHIM_NAME) && memcmp(base, SHIM_NAME, bl) == 0;
}

/* appends the N-byte entry E to OUT (at *LEN), a colon before it if OUT
 * holds one already */
static void add_entry(char *out, size_t *len, const char *e, size_t n)
{
  if (*len)
    out[(*len)++] = ':';
  memcpy(out + *len, e, n);
  *len += n;
}

char *cl_build_preload(const char *shim, const char *existing,
                       const char *runtime)
{
  if (!shim || !*shim || strpbrk(shim, ": \t\n") ||
      (runtime && (!*runtime || strpbrk(runtime, ": \t\n"))))
    return NULL;
  const char *ex = existing ? existing : "";
  size_t cap = strlen(shim) + strlen(ex) + (runtime ? strlen(runtime) : 0) + 3;
  char *out = malloc(cap);
  if (!out)
    return NULL;
  size_t len = 0;
  /* ld.so separates entries by colons or blanks; the entries are joined by
   * colons.  Three passes: the sanitizer runtimes that must come first
   * (theirs, then RUNTIME unless they named it), the shim, the others in
   * their order. */
  size_t rbl = 0;
  const char *rbase = runtime ? base_of(runtime, strlen(runtime), &rbl) : NULL;
  for (int pass = 0; pass < 3; pass++) {
    if (pass == 1) {
      if (rbase)
        add_entry(out, &len, runtime, strlen(runtime));
      add_entry(out, &len, shim, strlen(shim));
      continue;
    }
    for (const char *p = ex; *p;) {
      size_t n = strcspn(p, ": \t\n");
      if (n && !is_shim_entry(p, n, shim) && cl_first_runtime(p, n) == !pass) {
        size_t bl;
        const char *b = base_of(p, n, &bl);
        if (!pass && rbase && bl == rbl && memcmp(b, rbase, bl) == 0)
          rbase = NULL; /* theirs already */
        add_entry(out, &len, p, n);
      }
      p += n;
      if (*p)
        p++;
    }
  }
  out[len] = '\0';
  return out;
}

/* N bytes of FD at OFF into BUF: 0, or -1 when the file has fewer */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
  return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

int cl_needed_runtime(const char *file, char *out, size_t size)
{
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  int found = 0;
  Elf64_Ehdr eh;
  Elf64_Phdr ph[64];
  if (read_at(fd, &eh, sizeof eh, 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof *ph ||
      eh.e_phnum == 0 || eh.e_phnum > 64 ||
      read_at(fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff) < 0)
    goto done;
  /* the dynamic section, and its string table's address as a file offset
   * (through the loadable segment that holds it) */
  const Elf64_Phdr *dyn = NULL;
  for (int i = 0; i < eh.e_phnum; i++)
    if (ph[i].p_type == PT_DYNAMIC)
      dyn = &ph[i];
  if (!dyn || dyn->p_filesz / sizeof(Elf64_Dyn) > 4096)
    goto done;
  size_t nd = dyn->p_filesz / sizeof(Elf64_Dyn);
  Elf64_Dyn *d = malloc(nd * sizeof *d);
  if (!d || read_at(fd, d, nd * sizeof *d, dyn->p_offset) < 0) {
    free(d);
    goto done;
  }
  uint64_t strtab = 0, strsz = 0, stroff = UINT64_MAX;
  for (size_t i = 0; i < nd && d[i].d_tag != DT_NULL; i++) {
    if (d[i].d_tag == DT_STRTAB)
      strtab = d[i].d_un.d_ptr;
    else if (d[i].d_tag == DT_STRSZ)
      strsz = d[i].d_un.d_val;
  }
  for (int i = 0; i < eh.e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && strtab >= ph[i].p_vaddr &&
        strtab - ph[i].p_vaddr < ph[i].p_filesz)
      stroff = strtab - ph[i].p_vaddr + ph[i].p_offset;
  for (size_t i = 0; stroff != UINT64_MAX && !found && i < nd &&
                     d[i].d_tag != DT_NULL; i++) {
    char name[256];
    if (d[i].d_tag != DT_NEEDED || d[i].d_un.d_val >= strsz)
      continue;
    ssize_t got = pread(fd, name, sizeof name - 1,
                        (off_t)(stroff + d[i].d_un.d_val));
    if (got <= 0)
      continue;
    name[got] = '\0';
    size_t n = strlen(name);
    if (n < sizeof name - 1 && n < size && cl_first_runtime(name, n)) {
      memcpy(out, name, n + 1);
      found = 1;
    }
  }
  free(d);
done:
  close(fd);
  return found;
}

int cl_exit_code(int wstatus)
{
  if (WIFEXITED(wstatus))
    return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus))
    return 128 + WTERMSIG(wstatus);
  return 1;
}

int cl_parse_run(int argc, char **argv, struct cl_run_opts *o)
{
  memset(o, 0, sizeof *o);
  int i = 0;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (a[0] != '-' || a[1] == '\0')
      break; /* the command (a lone "-" is a file name too) */
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      o->help = true;
      return 0;
    }
    if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (i + 1 >= argc) {
        snprintf(o->error, sizeof o->error, "option '%s' needs a PATTERN", a);
        return -1;
      }
      o->output = argv[++i];
    } else if (strncmp(a, "--output=", 9) == 0) {
      o->output = a + 9;
    } else if (strncmp(a, "-o", 2) == 0) {
      o->output = a + 2;
    } else if (strcmp(a, "--reduce") == 0) {
      o->reduce = true;
    } else if (strcmp(a, "--footprint") == 0) {
      o->footprint = true;
    } else if (strcmp(a, "--fail-on") == 0 ||
               strncmp(a, "--fail-on=", 10) == 0) {
      if (!a[9] && i + 1 >= argc) {
        snprintf(o->error, sizeof o->error,
                 "option '--fail-on' needs a SEVERITY (error, warning or note)");
        return -1;
      }
      o->fail_on = a[9] ? a + 10 : argv[++i];
      if (strcmp(o->fail_on, "error") && strcmp(o->fail_on, "warning") &&
          strcmp(o->fail_on, "note")) {
        snprintf(o->error, sizeof o->error,
                 "unknown severity '%.100s' for --fail-on (error, warning or "
                 "note)", o->fail_on);
        return -1;
      }
    } else {
      snprintf(o->error, sizeof o->error, "unknown option '%.200s'", a);
      return -1;
    }
    if (o->output && !*o->output) {
      snprintf(o->error, sizeof o->error, "the output PATTERN is empty");
      return -1;
    }
  }
  if (i >= argc) {
    snprintf(o->error, sizeof o->error, "no command given");
    return -1;
  }
  o->cmd = argv + i;
  return 0;
}

int cl_shim_candidates(const char *exe_dir, const char *installed,
                       char out[][PATH_MAX], int max)
{
  int n = 0;
  /* The build tree first: only a build directory has .libs/libcudalens.so
   * beside the program, and there the freshly built shim must win over an
   * older installed one. */
  if (exe_dir && n < max &&
      snprintf(out[n], PATH_MAX, "%s/.libs/" SHIM_NAME, exe_dir) < PATH_MAX)
    n++;
  if (installed && *installed && n < max &&
      snprintf(out[n], PATH_MAX, "%s", installed) < PATH_MAX)
    n++;
  /* A relocated installation: <prefix>/bin/cudalens, <prefix>/lib/... */
  if (exe_dir && n < max &&
      snprintf(out[n], PATH_MAX, "%s/../lib/" SHIM_NAME, exe_dir) < PATH_MAX)
    n++;
  return n;
}

int cl_report_candidates(const char *exe_dir, const char *installed,
                         char out[][PATH_MAX], int max)
{
  int n = 0;
  /* Beside the launcher first: in the build tree both programs are at its
   * top, installed ones share a bin folder, and a relocated installation
   * must not run an older cudalens-report from the configured prefix. */
  if (exe_dir && n < max &&
      snprintf(out[n], PATH_MAX, "%s/" REPORT_NAME, exe_dir) < PATH_MAX)
    n++;
  if (installed && *installed && n < max &&
      snprintf(out[n], PATH_MAX, "%s", installed) < PATH_MAX)
    n++;
  return n;
}

int cl_report_verdict(int wstatus)
{
  if (!WIFEXITED(wstatus))
    return 2;
  int code = WEXITSTATUS(wstatus);
  return code == 0 || code == 1 ? code : 2;
}

int cl_fail_on_status(int program_code, int not_checked,
                      int reports_with_findings)
{
  if (program_code)
    return program_code;
  if (not_checked)
    return 2;
  return reports_with_findings ? 1 : 0;
}

int cl_manifest_next(const char **p, const char **line, size_t *len)
{
  while (**p) {
    const char *s = *p;
    size_t n = strcspn(s, "\n");
    *p = s + n + (s[n] == '\n');
    while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
      n--;
    if (n) {
      *line = s;
      *len = n;
      return 1;
    }
  }
  return 0;
}

int cl_manifest_problem(const char *line, size_t len, long *pid,
                        const char **name, size_t *name_len, const char **why,
                        size_t *why_len)
{
  if (!len || line[0] != '!')
    return 0;
  const char *end = line + len, *p = line + 1;
  char *num_end;
  *pid = strtol(p, &num_end, 10);
  if (num_end == p || num_end >= end || *num_end != ' ')
    *pid = 0;
  p = num_end < end && *num_end == ' ' ? num_end + 1 : p;
  const char *tab = memchr(p, '\t', (size_t)(end - p));
  *name = p;
  *name_len = tab ? (size_t)(tab - p) : 0;
  *why = tab ? tab + 1 : p;
  *why_len = (size_t)(end - *why);
  return 1;
}

const char *cl_display_path(const char *path, size_t len, const char *cwd,
                            size_t *out_len)
{
  size_t cl = cwd ? strlen(cwd) : 0;
  if (cl > 1 && len > cl + 1 && memcmp(path, cwd, cl) == 0 && path[cl] == '/') {
    *out_len = len - cl - 1;
    return path + cl + 1;
  }
  *out_len = len;
  return path;
}

#ifndef CL_LAUNCHER_NO_MAIN

/* ---- the program ----------------------------------------------------------- */

static const char usage_text[] =
    "Usage: cudalens [run] [-o PATTERN] [--reduce] [--fail-on=SEV]\n"
    "                [--footprint] [--] CMD [ARGS...]\n"
    "       cudalens --version | --help\n"
    "\n"
    "Runs CMD with libcudalens.so preloaded, which records the program's CUDA\n"
    "calls into an SQLite database (one per process), then says where the\n"
    "databases went.  Summarize one with `cudalens-report DB`.  The word\n"
    "`run` may be left out (`cudalens ./app`), as with compute-sanitizer.\n"
    "\n"
    "  -o, --output PATTERN  database name (sets CUDALENS_OUTPUT); %p pid,\n"
    "                        %h host name, %q{VAR} environment variable VAR,\n"
    "                        %% a percent sign; default cudalens-%p.db.  The\n"
    "                        pattern is checked and its missing folders made\n"
    "                        before CMD starts\n"
    "      --reduce          afterwards reduce each database written to its\n"
    "                        findings (cudalens-report --reduce: X.cldr beside\n"
    "                        X.db), so that a report of many ranks need not\n"
    "                        read their calls (also CUDALENS_REDUCE=1)\n"
    "      --fail-on=SEV     SEV is error, warning or note: afterwards run\n"
    "                        cudalens-report on all the databases written (one\n"
    "                        report, findings merged), print it on stderr, and\n"
    "                        exit 1 when it has a finding of severity SEV or\n"
    "                        worse (for CI)\n"
    "      --footprint       first run CMD once more under\n"
    "                        libcudalens-footprint.so (NVIDIA's Compute\n"
    "                        Sanitizer API, not the recorder: the two cannot\n"
    "                        share a process), which writes what each kernel\n"
    "                        function read and wrote to\n"
    "                        cudalens-footprints.clfp beside the databases;\n"
    "                        then record as usual, and --fail-on's report\n"
    "                        applies the footprints.  CMD runs twice: it must\n"
    "                        launch the same kernels both times\n"
    "  -h, --help            show this help\n"
    "      --version         show the version\n"
    "\n"
    "The exit status is CMD's, or 128+N when CMD died from signal N; 2 for a\n"
    "usage error or a bad PATTERN, 126/127 when CMD cannot be run.  With\n"
    "--fail-on and CMD exiting 0: 1 for findings, 2 when a report could not be\n"
    "made, else 0.  Environment: CUDALENS_SHIM (path of libcudalens.so),\n"
    "CUDALENS_REPORT (path of cudalens-report), CUDALENS_FOOTPRINT_LIB (path\n"
    "of libcudalens-footprint.so; default beside the shim), and those of\n"
    "libcudalens(7).\n"
    "See cudalens(1).  Report bugs at " PACKAGE_BUGREPORT "\n";

static void die_usage(const char *msg)
{
  fprintf(stderr, "cudalens: %s (try 'cudalens --help')\n", msg);
  exit(2);
}

static char *self_dir(void)
{
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return NULL;
  buf[n] = '\0';
  char *slash = strrchr(buf, '/');
  if (!slash)
    return NULL;
  *slash = '\0';
  return strdup(slash == buf ? "/" : buf);
}

static bool is_file(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The absolute path of the shim, or exit 2 with one line. */
static char *find_shim(void)
{
  char resolved[PATH_MAX];
  const char *env = getenv("CUDALENS_SHIM");
  if (env && *env) {
    struct stat st;
    const char *why = NULL;
    if (stat(env, &st) < 0)
      why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
      why = "not a regular file";
    else if (!realpath(env, resolved))
      why = strerror(errno);
    if (why) {
      fprintf(stderr, "cudalens: CUDALENS_SHIM=%s: %s\n", env, why);
      exit(2);
    }
    return strdup(resolved);
  }
  char *dir = self_dir();
  char cand[3][PATH_MAX];
  int n = cl_shim_candidates(dir, CL_SHIM_PATH, cand, 3);
  free(dir);
  for (int i = 0; i < n; i++)
    if (is_file(cand[i]) && realpath(cand[i], resolved))
      return strdup(resolved);
  fprintf(stderr, "cudalens: cannot find " SHIM_NAME " (set CUDALENS_SHIM)\n");
  exit(2);
}

/* The absolute path of cudalens-report (for --fail-on), or exit 2 with one
 * line: looked for before the program runs, not after an hour of it. */
static char *find_report(void)
{
  char resolved[PATH_MAX];
  const char *env = getenv("CUDALENS_REPORT");
  if (env && *env) {
    const char *why = NULL;
    if (!realpath(env, resolved) || access(resolved, X_OK) < 0)
      why = strerror(errno);
    else if (!is_file(resolved))
      why = "not a regular file";
    if (why) {
      fprintf(stderr, "cudalens: CUDALENS_REPORT=%s: %s\n", env, why);
      exit(2);
    }
    return strdup(resolved);
  }
  char *dir = self_dir();
  char cand[2][PATH_MAX];
  int n = cl_report_candidates(dir, CL_REPORT_PATH, cand, 2);
  free(dir);
  for (int i = 0; i < n; i++)
    if (is_file(cand[i]) && access(cand[i], X_OK) == 0 &&
        realpath(cand[i], resolved))
      return strdup(resolved);
  fprintf(stderr, "cudalens: --fail-on: cannot find " REPORT_NAME
                  " beside cudalens or at " CL_REPORT_PATH
                  " (set CUDALENS_REPORT)\n");
  exit(2);
}

/* Checks the output pattern with the shim's own rule and makes the folder
 * every process writes into (the shim makes none), so that a typo fails
 * here instead of leaving the program unrecorded: a pattern that names a
 * folder (ends in '/', or is one), or whose folders cannot exist when the
 * program starts (common/outpath.c, cl_outpath_folder) is refused; exit 2
 * with one line that starts with label ("-o " or "CUDALENS_OUTPUT=") and
 * the pattern. */
static void prepare_output(const char *label, const char *pattern)
{
  char path[4096], err[512];
  struct stat st;
  bool bad = cl_outpath_expand(pattern, getpid(), path, sizeof path, err,
                               sizeof err) < 0;
  if (!bad && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(err, sizeof err, "is a folder (name a file in it: "
             "%s/cudalens-%%p.db)", pattern);
    bad = true;
  }
  if (!bad)
    bad = cl_outpath_folder(pattern, path, sizeof path, err, sizeof err) < 0 ||
          (path[0] && cl_make_folders(path, err, sizeof err) < 0);
  if (!bad)
    return;
  fprintf(stderr, "cudalens: %s%s: %s\n", label, pattern, err);
  exit(2);
}

/* Signals that would kill only the launcher are passed on to the child, so
 * that the shim gets to flush and the launcher lives to report.  SIGINT and
 * SIGQUIT from the terminal already reach the child (same process group):
 * the launcher ignores them, as system(3) does. */
static volatile pid_t child_pid;
static const int forwarded[] = {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM};
static const int ignored[] = {SIGINT, SIGQUIT};

/* the cudalens-report --reduce processes running side by side (--reduce),
 * which get them too */
#define MAX_REDUCERS 64
static volatile pid_t reducers[MAX_REDUCERS];

static void forward(int sig)
{
  int e = errno;
  if (child_pid > 0)
    kill(child_pid, sig);
  for (int i = 0; i < MAX_REDUCERS; i++)
    if (reducers[i] > 0)
      kill(reducers[i], sig);
  errno = e;
}

/* The manifest's contents (a string; "" when unreadable). */
static char *read_manifest(int fd)
{
  char *buf = NULL;
  size_t len = 0, cap = 0;
  if (fd >= 0 && lseek(fd, 0, SEEK_SET) == 0) {
    for (;;) {
      if (cap - len < 4096) {
        char *nb = realloc(buf, cap ? cap * 2 : 8192);
        if (!nb)
          break;
        buf = nb;
        cap = cap ? cap * 2 : 8192;
      }
      ssize_t r = read(fd, buf + len, cap - len - 1);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      len += (size_t)r;
    }
  }
  if (!buf)
    return strdup("");
  buf[len] = '\0';
  return buf;
}

/* The processes the manifest says were not recorded in full: the first
 * reason of each. */
struct problem {
  long pid;
  char *name, *why;
};
struct problems {
  struct problem *v;
  size_t n;
};

static void problems_read(const char *manifest, struct problems *ps)
{
  const char *p = manifest ? manifest : "", *line, *name, *why;
  size_t n, nl, wl;
  long pid;
  memset(ps, 0, sizeof *ps);
  while (cl_manifest_next(&p, &line, &n)) {
    if (!cl_manifest_problem(line, n, &pid, &name, &nl, &why, &wl))
      continue;
    size_t i = 0;
    while (i < ps->n && (ps->v[i].pid != pid || !pid))
      i++;
    if (i < ps->n)
      continue; /* its first reason is kept */
    struct problem *grown = realloc(ps->v, (ps->n + 1) * sizeof *grown);
    if (!grown)
      return;
    ps->v = grown;
    ps->v[ps->n] = (struct problem){pid, strndup(name, nl), strndup(why, wl)};
    ps->n++;
  }
}

static void problems_free(struct problems *ps)
{
  for (size_t i = 0; i < ps->n; i++) {
    free(ps->v[i].name);
    free(ps->v[i].why);
  }
  free(ps->v);
}

/* "process 42 (app)" */
static void process_label(char *buf, size_t sz, const struct problem *p)
{
  if (p->name && *p->name)
    snprintf(buf, sz, "process %ld (%s)", p->pid, p->name);
  else
    snprintf(buf, sz, "process %ld", p->pid);
}

/* Says which databases the run wrote, and which processes were not
 * recorded in full; returns how many databases. */
static int list_recordings(const char *manifest, bool known,
                           const struct problems *ps)
{
  char cwdbuf[PATH_MAX], who[300];
  const char *cwd = getcwd(cwdbuf, sizeof cwdbuf);
  const char *p = manifest ? manifest : "", *line, *x;
  size_t n, dn, xl;
  long pid;
  int count = 0;
  while (cl_manifest_next(&p, &line, &n)) {
    if (cl_manifest_problem(line, n, &pid, &x, &xl, &x, &xl))
      continue;
    const char *d = cl_display_path(line, n, cwd, &dn);
    fprintf(stderr, "cudalens: wrote %.*s\n", (int)dn, d);
    count++;
  }
  for (size_t i = 0; i < ps->n; i++) {
    process_label(who, sizeof who, &ps->v[i]);
    fprintf(stderr, "cudalens: %s was not recorded in full: %s\n", who,
            ps->v[i].why);
  }
  if (known && !count && !ps->n)
    fprintf(stderr, "cudalens: no database written (the program made no CUDA "
                    "calls, or capture was disabled; see the messages above)\n");
  return count;
}

/* Runs `cudalens-report --fail-on=SEV DB...` with its output on stderr and
 * the environment the launcher was started with; returns cl_report_verdict.
 * WHAT names the recordings in a message. */
/* Runs `cudalens-report OPT DB...` with its output on stderr and the
 * environment the launcher was started with; its waitpid status, or -1
 * when it could not be started. */
/* --footprints=FILE for the reports (--footprint), or NULL */
static char *footprints_opt;

static pid_t start_report(const char *report, const char *opt, char **dbs,
                          int ndbs, const char *orig_preload)
{
  char **argv = calloc((size_t)ndbs + 4, sizeof *argv);
  if (!argv) {
    fprintf(stderr, "cudalens: out of memory\n");
    return -1;
  }
  int k = 0;
  argv[k++] = (char *)report;
  argv[k++] = (char *)opt;
  /* a reduced result is made without footprints (cudalens-report(1)) */
  if (footprints_opt && strcmp(opt, "--reduce") != 0)
    argv[k++] = footprints_opt;
  for (int i = 0; i < ndbs; i++)
    argv[k++] = dbs[i];
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "cudalens: fork: %s\n", strerror(errno));
    free(argv);
    return -1;
  }
  if (pid == 0) {
    if (orig_preload)
      setenv("LD_PRELOAD", orig_preload, 1);
    else
      unsetenv("LD_PRELOAD");
    unsetenv("CUDALENS_MANIFEST");
    signal(SIGINT, SIG_DFL); /* ignored by the launcher, kept over exec */
    signal(SIGQUIT, SIG_DFL);
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
      _exit(2);
    execv(report, argv);
    fprintf(stderr, "cudalens: cannot run %s: %s\n", report, strerror(errno));
    _exit(2);
  }
  free(argv);
  return pid;
}

/* PID's waitpid status (2 << 8 when it cannot be had) */
static int wait_report(pid_t pid)
{
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "cudalens: waitpid: %s\n", strerror(errno));
      status = 2 << 8;
      break;
    }
  }
  return status;
}

static int spawn_report(const char *report, const char *opt, char **dbs,
                        int ndbs, const char *orig_preload)
{
  pid_t pid = start_report(report, opt, dbs, ndbs, orig_preload);
  if (pid < 0)
    return -1;
  child_pid = pid;
  int status = wait_report(pid);
  child_pid = 0;
  return status;
}

static int check_recording(const char *report, const char *sev, char **dbs,
                           int ndbs, const char *what,
                           const char *orig_preload)
{
  char opt[64];
  snprintf(opt, sizeof opt, "--fail-on=%s", sev);
  int status = spawn_report(report, opt, dbs, ndbs, orig_preload);
  if (status < 0)
    return 2;
  int verdict = cl_report_verdict(status);
  if (verdict == 2)
    fprintf(stderr, "cudalens: --fail-on: no report for %s (%s %d)\n", what,
            WIFSIGNALED(status) ? "signal" : "exit status",
            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  return verdict;
}

/* the databases the manifest names, as shown to the user (malloc'd, *N of
 * them); NULL with *N -1 when out of memory */
static char **manifest_dbs(const char *manifest, int *n)
{
  char cwdbuf[PATH_MAX];
  const char *cwd = getcwd(cwdbuf, sizeof cwdbuf);
  const char *p = manifest ? manifest : "", *line, *d, *x;
  size_t len, dn, xl;
  long pid;
  char **dbs = NULL;
  *n = 0;
  while (cl_manifest_next(&p, &line, &len)) {
    if (cl_manifest_problem(line, len, &pid, &x, &xl, &x, &xl))
      continue;
    d = cl_display_path(line, len, cwd, &dn);
    char **grown = realloc(dbs, ((size_t)*n + 1) * sizeof *dbs);
    if (grown)
      dbs = grown;
    char *db = grown ? strndup(d, dn) : NULL;
    if (!db) {
      for (int i = 0; i < *n; i++)
        free(dbs[i]);
      free(dbs);
      *n = -1;
      return NULL;
    }
    dbs[(*n)++] = db;
  }
  return dbs;
}

/* --reduce: `cudalens-report --reduce` on the databases written, as many
 * side by side as there are processors (the ranks of a node, under
 * torchrun), each on a share of them; a line when one fails (the
 * program's exit status stays as it is) */
static void reduce_recordings(const char *report, const char *manifest,
                              const char *orig_preload)
{
  int n;
  char **dbs = manifest_dbs(manifest, &n);
  if (n < 0) {
    fprintf(stderr, "cudalens: --reduce: out of memory\n");
    return;
  }
  if (n > 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int k = cpus < 1 ? 1 : cpus > MAX_REDUCERS ? MAX_REDUCERS : (int)cpus;
    if (k > n)
      k = n;
    bool ok = true;
    for (int i = 0; i < k; i++) {
      int from = (int)((long)n * i / k), to = (int)((long)n * (i + 1) / k);
      pid_t pid = start_report(report, "--reduce", dbs + from, to - from,
                               orig_preload);
      if (pid < 0)
        ok = false;
      reducers[i] = pid;
    }
    for (int i = 0; i < k; i++) {
      if (reducers[i] <= 0)
        continue;
      int status = wait_report(reducers[i]);
      reducers[i] = 0;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        ok = false;
    }
    if (ok)
      fprintf(stderr, "cudalens: reduced %d recording%s (beside %s)\n", n,
              n == 1 ? "" : "s", n == 1 ? "it" : "them");
    else
      fprintf(stderr, "cudalens: --reduce: the recordings were not all "
                      "reduced (a report reads them instead)\n");
  }
  for (int i = 0; i < n; i++)
    free(dbs[i]);
  free(dbs);
}

/* --fail-on: one report of all the recordings the manifest names (their
 * findings merged when there are several: cudalens-report(1), SEVERAL
 * PROCESSES), named as shown to the user, and the processes it says were
 * not recorded in full; returns the exit status (cl_fail_on_status). */
static int check_recordings(const char *report, const char *sev,
                            const char *manifest, const struct problems *ps,
                            int program_code, const char *orig_preload)
{
  char cwdbuf[PATH_MAX];
  const char *cwd = getcwd(cwdbuf, sizeof cwdbuf);
  const char *p = manifest ? manifest : "", *line, *d, *x;
  size_t n, dn, xl;
  long pid;
  int total = 0, failed = 0;
  char **dbs = NULL;
  while (cl_manifest_next(&p, &line, &n)) {
    if (cl_manifest_problem(line, n, &pid, &x, &xl, &x, &xl))
      continue;
    d = cl_display_path(line, n, cwd, &dn);
    char **grown = realloc(dbs, ((size_t)total + 1) * sizeof *dbs);
    char *db = strndup(d, dn);
    if (!grown || !db) {
      free(db);
      if (grown)
        dbs = grown;
      failed = 1;
      break;
    }
    dbs = grown;
    dbs[total++] = db;
  }
  int verdict = 0;
  char what[64];
  snprintf(what, sizeof what, "the %d recordings", total);
  if (failed) {
    fprintf(stderr, "cudalens: --fail-on: out of memory\n");
    verdict = 2;
  } else if (total) {
    if (total == 1)
      fprintf(stderr, "cudalens: report of %s:\n", dbs[0]);
    else
      fprintf(stderr, "cudalens: report of %d recordings:\n", total);
    verdict = check_recording(report, sev, dbs, total,
                              total == 1 ? dbs[0] : what, orig_preload);
  }
  for (int i = 0; i < total; i++)
    free(dbs[i]);
  free(dbs);
  int code = cl_fail_on_status(program_code, verdict == 2 || ps->n != 0,
                               verdict == 1);
  const char *own = program_code ? " (the program's own)" : "";
  /* what was not checked: ", but process 42 (app) was not recorded in
   * full: WHY" */
  char unchecked[1400] = "", who[300];
  if (ps->n) {
    process_label(who, sizeof who, &ps->v[0]);
    if (ps->n == 1)
      snprintf(unchecked, sizeof unchecked, "%s was not recorded in full: %s",
               who, ps->v[0].why);
    else
      snprintf(unchecked, sizeof unchecked, "%zu processes were not recorded "
               "in full (%s: %s, and %zu more)", ps->n, who, ps->v[0].why,
               ps->n - 1);
  }
  fprintf(stderr, "cudalens: --fail-on=%s: ", sev);
  if (!total && verdict != 2)
    fprintf(stderr, "no recording to report%s%s", *unchecked ? ": " : "",
            unchecked);
  else if (verdict == 2)
    fprintf(stderr, "no report of the %d recording%s%s%s", total,
            total == 1 ? "" : "s", *unchecked ? ", and " : "", unchecked);
  else
    fprintf(stderr, "%sfindings of %s or worse in the report of %d "
            "recording%s%s%s", verdict ? "" : "no ", sev, total,
            total == 1 ? "" : "s", *unchecked ? ", but " : "", unchecked);
  fprintf(stderr, "; exit status %d%s\n", code, own);
  return code;
}

/* Runs CMD as a child with the current environment, passing on the
 * signals that would kill only the launcher; its waitpid status, or -1 when
 * it could not be started (said on stderr).  *EXEC_ERRNO: why execvp
 * failed, 0 when CMD ran. */
static int run_command(char **cmd, int *exec_errno)
{
  *exec_errno = 0;
  /* A close-on-exec pipe tells the parent whether execvp failed. */
  int ep[2];
  if (pipe(ep) < 0) {
    fprintf(stderr, "cudalens: pipe: %s\n", strerror(errno));
    return -1;
  }
  fcntl(ep[0], F_SETFD, FD_CLOEXEC);
  fcntl(ep[1], F_SETFD, FD_CLOEXEC);

  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  pid_t pid = fork();
  if (pid < 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    fprintf(stderr, "cudalens: fork: %s\n", strerror(errno));
    close(ep[0]);
    close(ep[1]);
    return -1;
  }
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(ep[0]);
    execvp(cmd[0], cmd);
    int e = errno;
    ssize_t w = write(ep[1], &e, sizeof e);
    (void)w;
    _exit(127);
  }
  child_pid = pid;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sa.sa_handler = forward;
  for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++)
    sigaction(forwarded[i], &sa, NULL);
  sa.sa_handler = SIG_IGN;
  for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
    sigaction(ignored[i], &sa, NULL);
  sigprocmask(SIG_SETMASK, &old, NULL);

  close(ep[1]);
  int e = 0;
  ssize_t r;
  do
    r = read(ep[0], &e, sizeof e);
  while (r < 0 && errno == EINTR);
  close(ep[0]);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "cudalens: waitpid: %s\n", strerror(errno));
      status = 1 << 8;
      break;
    }
  }
  child_pid = 0;
  if (r == (ssize_t)sizeof e)
    *exec_errno = e;
  return status;
}

/* --footprint: runs CMD once under the footprint collector (not the shim:
 * CUPTI and the Compute Sanitizer API cannot share a process with CUDA
 * 13.0; tests/gpu/footprint/README.md), which writes
 * cudalens-footprints.clfp in the folder of the recordings (PATTERN's);
 * sets footprints_opt when it did.  0, or the exit status of a launcher
 * that could not run CMD. */
static int footprint_run(char **cmd, const char *shim, const char *pattern,
                         const char *orig_preload, const char *first)
{
  char lib[PATH_MAX], resolved[PATH_MAX], path[PATH_MAX], err[256];
  const char *env = getenv("CUDALENS_FOOTPRINT_LIB");
  if (env && *env) {
    snprintf(lib, sizeof lib, "%s", env);
  } else {
    const char *slash = strrchr(shim, '/');
    snprintf(lib, sizeof lib, "%.*s/libcudalens-footprint.so",
             slash ? (int)(slash - shim) : 1, slash ? shim : ".");
  }
  if (!is_file(lib) || !realpath(lib, resolved)) {
    fprintf(stderr, "cudalens: --footprint: cannot find %s (set "
                    "CUDALENS_FOOTPRINT_LIB)\n", lib);
    exit(2);
  }
  /* beside the recordings: the folder of the first one's path */
  if (cl_outpath_expand(pattern, getpid(), path, sizeof path, err,
                        sizeof err) < 0)
    snprintf(path, sizeof path, "cudalens.db");
  char *slash = strrchr(path, '/');
  char file[PATH_MAX + 32];
  snprintf(file, sizeof file, "%.*scudalens-footprints.clfp",
           slash ? (int)(slash - path + 1) : 0, path);
  /* a file of an earlier run would be merged into: this run's alone */
  static const char *const sfx[] = {"", "-journal", "-wal", "-shm"};
  for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++) {
    char f[PATH_MAX + 48];
    snprintf(f, sizeof f, "%s%s", file, sfx[i]);
    unlink(f);
  }
  char *preload = cl_build_preload(resolved, orig_preload, first);
  if (!preload || setenv("LD_PRELOAD", preload, 1) < 0 ||
      setenv("CUDALENS_FOOTPRINT_OUTPUT", file, 1) < 0) {
    fprintf(stderr, "cudalens: --footprint: cannot preload %s\n", resolved);
    exit(2);
  }
  free(preload);
  fprintf(stderr, "cudalens: --footprint: running %s under %s first\n",
          cmd[0], resolved);
  int exec_errno = 0;
  int status = run_command(cmd, &exec_errno);
  unsetenv("CUDALENS_FOOTPRINT_OUTPUT");
  if (orig_preload)
    setenv("LD_PRELOAD", orig_preload, 1);
  else
    unsetenv("LD_PRELOAD");
  if (status < 0)
    return 2;
  if (exec_errno) {
    fprintf(stderr, "cudalens: cannot run '%s': %s\n", cmd[0],
            strerror(exec_errno));
    return exec_errno == ENOENT ? 127 : 126;
  }
  int code = cl_exit_code(status);
  if (is_file(file)) {
    fprintf(stderr, "cudalens: footprints in %s (cudalens-report "
                    "--footprints=%s)%s\n", file, file,
            code ? "; the footprint run did not exit 0" : "");
    footprints_opt = malloc(strlen(file) + 16);
    if (footprints_opt)
      sprintf(footprints_opt, "--footprints=%s", file);
  } else {
    fprintf(stderr, "cudalens: --footprint: the footprint run (exit status "
                    "%d) wrote no footprints; recording without them\n",
            code);
  }
  return 0;
}

/* the sanitizer runtime that CMD's executable needs first (execvp's search
 * of PATH for a name without a slash), into OUT: 1, else 0 */
static int command_runtime(const char *cmd, char *out, size_t size)
{
  if (strchr(cmd, '/'))
    return cl_needed_runtime(cmd, out, size);
  const char *path = getenv("PATH");
  for (const char *p = path && *path ? path : "/usr/local/bin:/bin:/usr/bin";;) {
    size_t n = strcspn(p, ":");
    char file[PATH_MAX];
    if (snprintf(file, sizeof file, "%.*s/%s", n ? (int)n : 1, n ? p : ".",
                 cmd) < (int)sizeof file &&
        access(file, X_OK) == 0)
      return cl_needed_runtime(file, out, size);
    if (!p[n])
      return 0;
    p += n + 1;
  }
}

static int run(int argc, char **argv)
{
  struct cl_run_opts o;
  if (cl_parse_run(argc, argv, &o) < 0)
    die_usage(o.error);
  if (o.help) {
    fputs(usage_text, stdout);
    return 0;
  }

  const char *env_reduce = getenv("CUDALENS_REDUCE");
  if (env_reduce && strcmp(env_reduce, "1") == 0)
    o.reduce = true;
  char *report = o.fail_on || o.reduce ? find_report() : NULL;
  char *shim = find_shim();
  const char *env_output = getenv("CUDALENS_OUTPUT");
  if (o.output)
    prepare_output("-o ", o.output);
  else if (env_output && *env_output)
    prepare_output("CUDALENS_OUTPUT=", env_output);
  const char *p = getenv("LD_PRELOAD");
  char *orig_preload = p ? strdup(p) : NULL;
  /* AddressSanitizer's runtime stops a program whose first library is not
   * it: one the program needs goes before the shim */
  char runtime[256];
  const char *first = command_runtime(o.cmd[0], runtime, sizeof runtime)
                          ? runtime
                          : NULL;
  if (o.footprint) {
    const char *pattern = o.output              ? o.output
                          : env_output && *env_output ? env_output
                                                      : "cudalens-%p.db";
    int code = footprint_run(o.cmd, shim, pattern, orig_preload, first);
    if (code)
      return code;
  }
  char *preload = cl_build_preload(shim, orig_preload, first);
  if (!preload) {
    fprintf(stderr, "cudalens: the path %s contains a colon or blank, which "
                    "LD_PRELOAD cannot carry (set CUDALENS_SHIM)\n", shim);
    return 2;
  }
  if (setenv("LD_PRELOAD", preload, 1) < 0 ||
      (o.output && setenv("CUDALENS_OUTPUT", o.output, 1) < 0)) {
    fprintf(stderr, "cudalens: setenv: %s\n", strerror(errno));
    return 2;
  }
  free(preload);
  free(shim);

  /* The manifest the shim appends database paths to. */
  const char *tmp = getenv("TMPDIR");
  char manifest[PATH_MAX];
  int mfd = -1;
  if (snprintf(manifest, sizeof manifest, "%s/cudalens-manifest-XXXXXX",
               tmp && *tmp ? tmp : "/tmp") < (int)sizeof manifest)
    mfd = mkstemp(manifest);
  if (mfd < 0) {
    fprintf(stderr, "cudalens: cannot create the manifest file in %s (%s); "
                    "the databases will not be listed\n",
            tmp && *tmp ? tmp : "/tmp", strerror(errno));
    unsetenv("CUDALENS_MANIFEST");
  } else {
    fcntl(mfd, F_SETFD, FD_CLOEXEC);
    setenv("CUDALENS_MANIFEST", manifest, 1);
  }

  int exec_errno = 0;
  int status = run_command(o.cmd, &exec_errno);
  if (status < 0)
    goto fail;

  if (exec_errno) {
    fprintf(stderr, "cudalens: cannot run '%s': %s\n", o.cmd[0],
            strerror(exec_errno));
    if (mfd >= 0) {
      unlink(manifest);
      close(mfd);
    }
    return exec_errno == ENOENT ? 127 : 126;
  }

  int code = cl_exit_code(status);
  char *written = read_manifest(mfd);
  struct problems problems;
  problems_read(written, &problems);
  list_recordings(written, mfd >= 0, &problems);
  if (mfd >= 0) {
    unlink(manifest);
    close(mfd);
  }
  if (o.reduce && mfd < 0)
    fprintf(stderr, "cudalens: --reduce: which databases were written is "
                    "unknown (no manifest)\n");
  else if (o.reduce)
    reduce_recordings(report, written, orig_preload);
  if (o.fail_on && mfd < 0) {
    fprintf(stderr, "cudalens: --fail-on: which databases were written is "
                    "unknown (no manifest)\n");
    code = cl_fail_on_status(code, 1, 0);
  } else if (o.fail_on) {
    code = check_recordings(report, o.fail_on, written, &problems, code,
                            orig_preload);
  }
  problems_free(&problems);
  free(written);
  free(report);
  free(orig_preload);
  free(footprints_opt);
  footprints_opt = NULL;
  return code;

fail:
  if (mfd >= 0) {
    unlink(manifest);
    close(mfd);
  }
  return 2;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    die_usage("no command given; usage: cudalens [run] [-o PATTERN] [--] CMD "
              "[ARGS...]");
  const char *a = argv[1];
  if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
    printf("cudalens %s (recording format %d)\n", PACKAGE_VERSION,
           CL_SCHEMA_VERSION);
    return 0;
  }
  if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 ||
      strcmp(a, "help") == 0) {
    fputs(usage_text, stdout);
    return 0;
  }
  /* `cudalens ./app`, `cudalens -o X ./app`: as compute-sanitizer and
   * valgrind are called, the same as `cudalens run ...` */
  if (strcmp(a, "run") == 0)
    return run(argc - 2, argv + 2);
  return run(argc - 1, argv + 1);
}

#endif /* CL_LAUNCHER_NO_MAIN */

/* report_main.c - cudalens-report: command-line options (suppression
 * files are read with them), then open each recording, summarize it, run
 * the analyses, merge the findings of several recordings (the processes of
 * one run), set the suppressed findings apart (suppress.c) and write the
 * report, and the suppressions --gen-suppressions asks for.
 * Exit status: 0 report written, 1 a finding shown at or above --fail-on,
 * 2 bad usage or input (one line on stderr). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/analyses.h"
#include "checks/find_collectives.h"
#include "checks/findings.h"
#include "checks/merge.h"
#include "checks/suppress.h"
#include "model/activity.h"
#include "model/db.h"
#include "model/footprints.h"
#include "model/reading.h"
#include "model/stacks.h"
#include "model/summary.h"
#include "model/timeline.h"
#include "output/output.h"
#include "recordings.h"
#include "reduced.h"
#include "sites/callsite.h"
#include "util.h"

enum format {
  FORMAT_TEXT, FORMAT_JSON, FORMAT_SARIF, FORMAT_GITHUB, FORMAT_PERFETTO,
  FORMAT_HTML
};

struct options {
  enum format format;
  int fail_on;          /* severity, -1 when not given */
  const char *output;   /* NULL: stdout */
  char *source_root;    /* normalized --source-root, NULL when not given */
  char **args;          /* the recordings and folders named */
  size_t nargs;
  struct suppressions supp; /* --suppressions, CUDALENS_SUPPRESSIONS,
                               --disable */
  bool gen_supp;            /* --gen-suppressions */
  bool broad;               /* --broad: function-wide entries */
  const char *gen_supp_file; /* its FILE; NULL: standard error */
  size_t stack_depth;       /* --stack=N: frames per place (default 1) */
  bool reduce;              /* --reduce: write reduced results, no report */
  const char *footprints;   /* --footprints / CUDALENS_FOOTPRINTS, or NULL */
  bool footprints_env;      /* it came from CUDALENS_FOOTPRINTS */
  struct footprints fp;     /* read from it */
};

static const char usage_text[] =
    "Usage: cudalens-report [--format=text|json|sarif|github|perfetto|html]\n"
    "                       [--fail-on=error|warning|note]\n"
    "                       [--source-root=DIR] [--stack=N]\n"
    "                       [--suppressions=FILE]...\n"
    "                       [--disable=KIND[,KIND]...]...\n"
    "                       [--gen-suppressions[=FILE] [--broad]] [-o FILE]\n"
    "                       [--footprints=FILE] RECORDING.db...\n"
    "       cudalens-report [OPTIONS] FOLDER\n"
    "       cudalens-report --reduce [--stack=N] [-o FILE] RECORDING.db...\n"
    "       cudalens-report --explain=KIND | --list-checks\n"
    "       cudalens-report --version | --help\n"
    "\n"
    "Summarize a cudalens recording (devices, streams, copies, kernels,\n"
    "synchronization) and report findings with the user's call sites.\n"
    "Several recordings (or a FOLDER: its *.db files) are the processes of\n"
    "one run: one report, the same findings merged and labelled with their\n"
    "processes (or ranks), then each process's summary.  A recording's\n"
    "reduced result (X.cldr beside X.db, from --reduce) is read instead of\n"
    "it when it is current: the same report, without reading the calls.\n"
    "\n"
    "  -f, --format=FORMAT   text (default), json, sarif (SARIF 2.1.0),\n"
    "                        github (GitHub Actions annotations; these two:\n"
    "                        findings only), perfetto (a timeline of streams\n"
    "                        and findings for ui.perfetto.dev) or html (the\n"
    "                        same timeline as one self-contained page;\n"
    "                        these two: one recording)\n"
    "      --fail-on=SEV     exit 1 when a finding of severity SEV or worse\n"
    "                        exists (error, warning or note; in any of the\n"
    "                        recordings)\n"
    "      --source-root=DIR files under DIR shown relative to it (the\n"
    "                        checkout of the program's sources)\n"
    "      --stack=N         show up to N frames of every place a finding\n"
    "                        names: its own, then those that called it\n"
    "                        (default 1: the user's frame alone)\n"
    "      --suppressions=FILE\n"
    "                        leave out the findings an entry of FILE\n"
    "                        matches (repeatable; also the files of\n"
    "                        CUDALENS_SUPPRESSIONS, colon-separated); an\n"
    "                        entry a line: KIND [FIELD=GLOB]..., FIELD one\n"
    "                        of function, file, kernel, module,\n"
    "                        fingerprint, at\n"
    "      --disable=KINDS   leave out every finding of these kinds (comma-\n"
    "                        separated; repeatable)\n"
    "      --gen-suppressions[=FILE]\n"
    "                        after the report, an entry matching just it\n"
    "                        for every finding shown (its kind and places,\n"
    "                        files relative to --source-root, else to the\n"
    "                        git work tree or the working directory), into\n"
    "                        FILE (else on standard error)\n"
    "      --broad           with --gen-suppressions: entries for the kind\n"
    "                        in the finding's function and file (they also\n"
    "                        hide new findings of that kind there)\n"
    "  -o, --output=FILE     write the report to FILE instead of stdout\n"
    "      --footprints=FILE the kernels' footprints from a separate,\n"
    "                        instrumented run of the program (cudalens run\n"
    "                        --footprint; also CUDALENS_FOOTPRINTS): what\n"
    "                        each kernel function read and wrote through\n"
    "                        each pointer parameter, applied to all its\n"
    "                        launches in the recordings\n"
    "      --reduce          write each recording's reduced result (its\n"
    "                        findings, summary and NCCL collectives) beside\n"
    "                        it as X.cldr (or to -o FILE, for one), no report\n"
    "      --explain=KIND    what a kind of finding means, its severity and\n"
    "                        the CUDA documentation it rests on, and exit\n"
    "      --list-checks     every kind of finding with its severity, and exit\n"
    "  -h, --help            show this help and exit\n"
    "  -V, --version         show the version and exit\n"
    "\n"
    "Exit status: 0 report written, 1 findings at or above --fail-on (not\n"
    "counting suppressed ones), 2 bad usage, an unreadable recording (any\n"
    "of them) or a malformed suppression file.\n"
    "Report bugs at " PACKAGE_BUGREPORT "\n";

static void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vfatal(fmt, ap);
}

/* TEXT as lines of at most WIDTH columns (words longer than that on a
 * line of their own) */
static void print_wrapped(FILE *f, const char *text, size_t width)
{
  size_t col = 0;
  for (const char *p = text; *p;) {
    while (*p == ' ')
      p++;
    size_t len = strcspn(p, " ");
    if (!len)
      break;
    if (col && col + 1 + len > width) {
      fputc('\n', f);
      col = 0;
    } else if (col) {
      fputc(' ', f);
      col++;
    }
    fwrite(p, 1, len, f);
    col += len;
    p += len;
  }
  if (col)
    fputc('\n', f);
}

static void parse_options(int argc, char **argv, struct options *o)
{
  static const struct option longopts[] = {
      {"format", required_argument, NULL, 'f'},
      {"fail-on", required_argument, NULL, 'F'},
      {"output", required_argument, NULL, 'o'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {"explain", required_argument, NULL, 'E'},
      {"list-checks", no_argument, NULL, 'L'},
      {"source-root", required_argument, NULL, 'R'},
      {"suppressions", required_argument, NULL, 'S'},
      {"disable", required_argument, NULL, 'D'},
      {"gen-suppressions", optional_argument, NULL, 'G'},
      {"broad", no_argument, NULL, 'B'},
      {"stack", required_argument, NULL, 'K'},
      {"reduce", no_argument, NULL, 'r'},
      {"footprints", required_argument, NULL, 'P'},
      {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->fail_on = -1;
  o->stack_depth = 1;
  suppressions_init(&o->supp);
  char *err = NULL;
  /* CUDALENS_SUPPRESSIONS first, then --suppressions in order */
  const char *env = getenv("CUDALENS_SUPPRESSIONS");
  if (env && *env) {
    char *list = xstrdup(env), *save = NULL;
    for (char *p = strtok_r(list, ":", &save); p;
         p = strtok_r(NULL, ":", &save))
      if (suppressions_load(&o->supp, p, &err) < 0)
        fail("%s (from CUDALENS_SUPPRESSIONS)", err);
    free(list);
  }
  env = getenv("CUDALENS_FOOTPRINTS");
  if (env && *env)
    o->footprints = env, o->footprints_env = true;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":f:o:hV", longopts, NULL)) != -1) {
    switch (c) {
    case 'f':
      if (strcmp(optarg, "text") == 0)
        o->format = FORMAT_TEXT;
      else if (strcmp(optarg, "json") == 0)
        o->format = FORMAT_JSON;
      else if (strcmp(optarg, "sarif") == 0)
        o->format = FORMAT_SARIF;
      else if (strcmp(optarg, "github") == 0)
        o->format = FORMAT_GITHUB;
      else if (strcmp(optarg, "perfetto") == 0)
        o->format = FORMAT_PERFETTO;
      else if (strcmp(optarg, "html") == 0)
        o->format = FORMAT_HTML;
      else
        fail("unknown format '%s' (use text, json, sarif, github, perfetto or"
             " html)", optarg);
      break;
    case 'F':
      if ((o->fail_on = severity_parse(optarg)) < 0)
        fail("unknown severity '%s' for --fail-on (use error, warning or"
             " note)", optarg);
      break;
    case 'o':
      o->output = optarg;
      break;
    case 'R':
      if (!*optarg)
        fail("--source-root needs a directory");
      free(o->source_root);
      if (!(o->source_root = source_root_normalize(optarg)))
        fail("--source-root=%s: the working directory is unknown: %s", optarg,
             strerror(errno));
      break;
    case 'S':
      if (!*optarg)
        fail("--suppressions needs a file");
      if (suppressions_load(&o->supp, optarg, &err) < 0)
        fail("%s", err);
      break;
    case 'D':
      if (suppressions_disable(&o->supp, optarg, &err) < 0)
        fail("%s", err);
      break;
    case 'K': {
      char *end;
      errno = 0;
      long n = strtol(optarg, &end, 10);
      if (!*optarg || *end || errno || n < 1 || n > 1000)
        fail("--stack=%s: not a number of frames from 1 to 1000", optarg);
      o->stack_depth = (size_t)n;
      break;
    }
    case 'G':
      if (optarg && !*optarg)
        fail("--gen-suppressions=FILE needs a file");
      o->gen_supp = true;
      o->gen_supp_file = optarg;
      break;
    case 'B':
      o->broad = true;
      break;
    case 'r':
      o->reduce = true;
      break;
    case 'P':
      if (!*optarg)
        fail("--footprints needs a file");
      o->footprints = optarg;
      o->footprints_env = false;
      break;
    case 'h':
      fputs(usage_text, stdout);
      exit(ferror(stdout) || fflush(stdout) ? 2 : 0);
    case 'E': {
      int id = check_by_kind(optarg);
      if (id < 0)
        fail("no kind of finding named '%s' (try --list-checks)", optarg);
      const struct check_info *ci = check_info((enum check_id)id);
      printf("%s (%s): %s.\n\n", ci->kind, severity_name(ci->severity),
             ci->title);
      print_wrapped(stdout, ci->help, 72);
      if (check_cost_rated((enum check_id)id)) {
        fputc('\n', stdout);
        print_wrapped(stdout, cost_rule_text, 72);
      }
      printf("\nRests on: %s.\n", ci->reference);
      exit(ferror(stdout) || fflush(stdout) ? 2 : 0);
    }
    case 'L':
      for (int id = 0; id < CHECK_COUNT; id++)
        printf("%-30s %-8s %s\n", check_info((enum check_id)id)->kind,
               severity_name(check_info((enum check_id)id)->severity),
               check_info((enum check_id)id)->title);
      exit(ferror(stdout) || fflush(stdout) ? 2 : 0);
    case 'V':
      printf("cudalens-report %s (recording format %d)\n", PACKAGE_VERSION,
             CL_SCHEMA_VERSION);
      exit(ferror(stdout) || fflush(stdout) ? 2 : 0);
    case ':':
      fail("option '%s' needs an argument (try --help)", argv[optind - 1]);
    default: {
      const char *arg = argv[optind - 1];
      if (strncmp(arg, "--", 2) == 0 && optopt)
        fail("option '%s' takes no argument (try --help)", arg);
      if (strncmp(arg, "--", 2) == 0)
        fail("unknown option '%s' (try --help)", arg);
      fail("unknown option '-%c' (try --help)", optopt);
    }
    }
  }
  if (o->broad && !o->gen_supp)
    fail("--broad is a form of --gen-suppressions (try --help)");
  /* a reduced result is what every report shares: findings before
   * --source-root, suppressions and --fail-on, which the report applies */
  if (o->reduce && (o->format != FORMAT_TEXT || o->gen_supp ||
                    o->source_root || o->fail_on >= 0 || o->supp.nsources ||
                    o->footprints))
    fail("--reduce takes only --stack and -o (the report applies the other "
         "options)");
  if (optind >= argc)
    fail("no recording given (usage: cudalens-report [OPTIONS] RECORDING.db;"
         " try --help)");
  o->args = argv + optind;
  o->nargs = (size_t)(argc - optind);
}

static bool timeline_format(enum format f)
{
  return f == FORMAT_PERFETTO || f == FORMAT_HTML;
}

static void write_report(const struct options *o, const struct recording *r,
                         size_t n, const struct findings *fs,
                         const struct suppressed *sup)
{
  FILE *f = stdout;
  const char *name = o->output ? o->output : "standard output";
  if (o->output && !(f = fopen(o->output, "w")))
    fail("%s: %s", o->output, strerror(errno));
  if (o->format == FORMAT_JSON)
    output_json(f, r, n, fs, sup);
  else if (o->format == FORMAT_SARIF)
    output_sarif(f, fs, sup, o->source_root);
  else if (o->format == FORMAT_GITHUB)
    output_github(f, fs);
  else if (o->format == FORMAT_PERFETTO) /* one recording (main) */
    output_perfetto(f, &r->sum, fs, r->tl);
  else if (o->format == FORMAT_HTML)
    output_html(f, &r->sum, fs, r->tl);
  else
    output_text(f, r, n, fs, sup);
  int err = ferror(f);
  if (fflush(f) != 0 && !err)
    err = 1;
  int saved = errno;
  if (f != stdout && fclose(f) != 0)
    err = 1, saved = errno;
  if (err)
    fail("%s: write error: %s", name, strerror(saved ? saved : EIO));
}

/* The folder generated suppressions name files relative to, when there is
 * no --source-root (the findings' files are then relative to it already):
 * the git work tree the working directory is in (a folder above it with a
 * .git), else the working directory; malloc'd, NULL when unknown. */
static char *suppression_base(void)
{
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    return NULL;
  for (size_t n = strlen(cwd); n > 0;) {
    char *git = xasprintf("%.*s/.git", (int)n, cwd);
    struct stat st;
    bool found = lstat(git, &st) == 0;
    free(git);
    if (found)
      return xasprintf("%.*s", (int)n, cwd);
    while (n > 0 && cwd[n - 1] != '/')
      n--;
    if (n > 0)
      n--; /* the '/' */
  }
  return xstrdup(cwd);
}

/* --gen-suppressions: an entry for every finding shown */
static void write_suppressions(const struct options *o,
                               const struct findings *fs)
{
  FILE *f = stderr;
  const char *name = o->gen_supp_file ? o->gen_supp_file : "standard error";
  if (o->gen_supp_file && !(f = fopen(o->gen_supp_file, "w")))
    fail("%s: %s", o->gen_supp_file, strerror(errno));
  char *base = o->source_root ? NULL : suppression_base();
  suppressions_generate(f, fs, o->broad, base);
  free(base);
  int err = ferror(f);
  if (fflush(f) != 0 && !err)
    err = 1;
  int saved = errno;
  if (f != stderr && fclose(f) != 0)
    err = 1, saved = errno;
  if (err)
    fail("%s: write error: %s", name, strerror(saved ? saved : EIO));
}

/* Never write over an input: FILE (-o, --gen-suppressions=; OPT names the
 * option) must not be one of the recordings PATHS[0..N) or a suppression
 * file read, nor any other recording (an SQLite database, as a shell glob
 * such as `-o cudalens-*.db` makes of the first one). */
static void check_not_input(const char *opt, const char *file,
                            char *const *paths, size_t n,
                            const struct options *o)
{
  struct stat out, in;
  if (!file || stat(file, &out) != 0)
    return; /* a new file, or one fopen will say is not writable */
  for (size_t i = 0; i < n; i++)
    if (stat(paths[i], &in) == 0 && in.st_dev == out.st_dev &&
        in.st_ino == out.st_ino)
      fail("%s%s: is one of the recordings to report; not written over", opt,
           file);
  for (size_t i = 0; i < o->supp.nsources; i++)
    if (stat(o->supp.sources[i], &in) == 0 && in.st_dev == out.st_dev &&
        in.st_ino == out.st_ino)
      fail("%s%s: is a suppression file this report reads; not written over",
           opt, file);
  static const char magic[16] = "SQLite format 3";
  char head[16];
  FILE *f = S_ISREG(out.st_mode) ? fopen(file, "rb") : NULL;
  bool sqlite = f && fread(head, 1, sizeof head, f) == sizeof head &&
                memcmp(head, magic, sizeof magic) == 0;
  if (f)
    fclose(f);
  if (sqlite)
    fail("%s%s: is a recording (an SQLite database); not written over", opt,
         file);
}

/* --stack=N: the callers of every place the findings name */
struct fill_callers {
  struct callsites *cs;
  size_t depth;
};

static void fill_callers(struct location *l, void *arg)
{
  const struct fill_callers *fc = arg;
  callsite_fill_callers(fc->cs, l, fc->depth);
}

/* open the recording at R->path, summarize it and find what is wrong */
static void analyze(struct recording *r, const struct options *o)
{
  struct cl_db db;
  char *err;
  if (db_open(&db, r->path, &err) < 0)
    fail("%s", err);

  struct activity act;
  recording_read(&db, &act);
  struct callsites *cs = stacks_callsites(&db);
  struct report_ctx ctx = {.db = &db, .act = &act, .sum = &r->sum, .cs = cs,
                           .fp = o->footprints ? &o->fp : NULL};
  /* the analyses that need no summary start while it is built */
  struct analyses_run *run = analyses_start(&ctx);
  summary_build(&r->sum, &db, &act);
  findings_init(&r->fs);
  analyses_finish(run, &r->fs);
  r->colls = collectives_gather(&ctx);
  if (o->stack_depth > 1) {
    struct fill_callers fc = {cs, o->stack_depth};
    findings_each_location(&r->fs, fill_callers, &fc);
  }
  if (timeline_format(o->format)) {
    r->tl = xcalloc(1, sizeof *r->tl);
    timeline_build(r->tl, &db, &act, &r->sum, cs);
  }
  callsites_free(cs);
  activity_free(&act);
  db_close(&db);
}

/* --source-root: paths under the root relative to it, then their order
 * and fingerprints again */
static void relative_to_root(struct recording *r, const struct options *o)
{
  if (o->source_root) {
    findings_relative_to(&r->fs, o->source_root);
    findings_sort(&r->fs);
    findings_fingerprint(&r->fs);
  }
}

/* R's findings and summary: from its reduced result when it names one
 * (X.cldr) or has a current one beside it, else from the recording */
static void load(struct recording *r, const struct options *o)
{
  char *err = NULL;
  if (reduced_named(r->path) && o->footprints)
    fail("%s: --footprints applies to a recording, not to a reduced result",
         r->path);
  if (o->footprints) {
    analyze(r, o); /* a reduced result beside it was made without them */
  } else if (reduced_named(r->path)) {
    if (timeline_format(o->format))
      fail("%s: --format=%s draws the recording itself, not its reduced "
           "result", r->path, o->format == FORMAT_HTML ? "html" : "perfetto");
    /* the report names the recording; the reduced result's name kept
     * reachable at once, as fail() may end the report */
    r->reduced = r->path;
    r->path = reduced_recording(r->reduced);
    if (reduced_read(r->reduced, NULL, o->stack_depth, r, &err) < 0)
      fail("%s", err);
  } else if (!timeline_format(o->format)) {
    char *file = reduced_path(r->path);
    if (access(file, F_OK) == 0 &&
        reduced_read(file, r->path, o->stack_depth, r, &err) < 0) {
      fputs("cudalens-report: note: ", stderr);
      fput_escaped(stderr, err);
      fputs("; reading the recording\n", stderr);
      free(err);
      err = NULL;
      analyze(r, o);
    } else if (!r->text_summary) {
      analyze(r, o);
    }
    if (r->text_summary)
      r->reduced = file;
    else
      free(file);
  } else {
    analyze(r, o);
  }
  /* a reduced rank's collectives: their sums until a comparison needs
   * them (reload_collectives) */
  if (r->reduced)
    collectives_fold(r->colls);
  relative_to_root(r, o);
}

/* the recordings of a report and its options, for reload_collectives */
struct reload_arg {
  struct recording *rec;
  const struct options *o;
};

/* a window of the collectives of the reduced result of recording K, read
 * again (collectives_compare) */
static int reload_collectives(size_t k, void *arg, int64_t comm_id,
                              size_t lo, size_t hi)
{
  const struct reload_arg *a = arg;
  const struct options *o = a->o;
  struct recording *r = &a->rec[k];
  if (!r->reduced)
    return -1;
  char *err = NULL;
  if (reduced_read_window(r->reduced, o->stack_depth, comm_id, lo, hi,
                          r->colls, &err) < 0)
    fail("%s", err);
  return 0;
}

/* --reduce: each recording's reduced result, beside it or -o FILE */
static int reduce_all(const struct options *o, char **paths, size_t n)
{
  if (o->output && n != 1)
    fail("--reduce -o FILE: one recording (got %zu); without -o each goes "
         "beside its recording", n);
  for (size_t i = 0; i < n; i++) {
    if (reduced_named(paths[i]))
      fail("%s: already a reduced result", paths[i]);
    struct recording r;
    memset(&r, 0, sizeof r);
    r.path = paths[i];
    analyze(&r, o);
    char *out = o->output ? xstrdup(o->output) : reduced_path(paths[i]);
    char *err = NULL;
    if (reduced_write(out, &r, o->stack_depth, &err) < 0)
      fail("%s", err);
    free(out);
    findings_free(&r.fs);
    summary_free(&r.sum);
    collectives_free(r.colls);
  }
  return 0;
}

int main(int argc, char **argv)
{
  /* static: what it holds (the footprints, the suppressions) stays
   * reachable until the process ends, as fail() may end it anywhere */
  static struct options o;
  parse_options(argc, argv, &o);

  size_t n;
  /* with footprints, recordings only: their reduced results lack them
   * (static, as o is) */
  static char **paths;
  paths = recordings_expand(o.args, o.nargs, !o.reduce && !o.footprints, &n);
  if (o.footprints) {
    char *err = NULL;
    if (footprints_read(&o.fp, o.footprints, &err) < 0)
      fail("%s%s", err, o.footprints_env ? " (from CUDALENS_FOOTPRINTS)" : "");
  }
  if (o.reduce) {
    check_not_input("-o ", o.output, paths, n, &o);
    int status = reduce_all(&o, paths, n);
    recordings_expand_free(paths, n);
    suppressions_free(&o.supp);
    return status;
  }
  if (n > 1 && timeline_format(o.format))
    fail("--format=%s draws one recording at a time (got %zu)",
         o.format == FORMAT_HTML ? "html" : "perfetto", n);
  check_not_input("-o ", o.output, paths, n, &o);
  check_not_input("--gen-suppressions=", o.gen_supp_file, paths, n, &o);
  struct stat a, b;
  if (o.output && o.gen_supp_file &&
      (strcmp(o.output, o.gen_supp_file) == 0 ||
       (stat(o.output, &a) == 0 && stat(o.gen_supp_file, &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino)))
    fail("-o %s and --gen-suppressions=%s: the same file", o.output,
         o.gen_supp_file);
  /* static: reachable until the process ends, as fail() may end it in the
   * middle of the report (an output that cannot be written) */
  static struct recording *rec;
  rec = xcalloc(n, sizeof *rec);
  for (size_t i = 0; i < n; i++) {
    rec[i].path = xstrdup(paths[i]);
    load(&rec[i], &o);
  }
  recordings_order(rec, n);

  /* the recordings as merging and the comparison of collectives see
   * them (static, as rec is) */
  static const struct process **procs;
  static struct findings **each;
  static struct coll_log **logs;
  procs = xcalloc(n, sizeof *procs);
  each = xcalloc(n, sizeof *each);
  logs = xcalloc(n, sizeof *logs);
  for (size_t i = 0; i < n; i++) {
    procs[i] = &rec[i].sum.proc;
    each[i] = &rec[i].fs;
    logs[i] = rec[i].colls;
  }
  struct merge_origins origins = {procs, n, recordings_all_ranked(rec, n)};
  struct findings fs;
  if (n == 1) {
    fs = rec[0].fs; /* one recording: its findings as they are */
    findings_init(&rec[0].fs);
  } else {
    merge_findings(&fs, each, &origins);
  }
  /* what the ranks did differently: across the recordings */
  size_t nfound = fs.n;
  struct reload_arg ra = {rec, &o};
  collectives_compare(logs, &origins, &fs, reload_collectives, &ra);
  free(procs);
  free(each);
  free(logs);
  if (o.source_root && fs.n != nfound) {
    findings_relative_to(&fs, o.source_root);
    findings_sort(&fs);
    findings_fingerprint(&fs);
  }

  /* suppressions take findings out of the report as it is shown: with
   * several recordings, the merged findings (a finding of many processes
   * is suppressed, and counted, once; the entries --gen-suppressions
   * writes match the merged findings they were written for) */
  struct suppressed sup;
  suppressions_apply(&o.supp, &fs, &sup);

  write_report(&o, rec, n, &fs, &sup);
  if (o.gen_supp)
    write_suppressions(&o, &fs);

  int status = 0;
  if (o.fail_on >= 0 && findings_max_severity(&fs) >= o.fail_on)
    status = 1;
  findings_free(&fs);
  suppressed_free(&sup);
  suppressions_free(&o.supp);
  for (size_t i = 0; i < n; i++) {
    findings_free(&rec[i].fs);
    summary_free(&rec[i].sum);
    if (rec[i].tl)
      timeline_free(rec[i].tl);
    collectives_free(rec[i].colls);
    free(rec[i].tl);
    free(rec[i].text_summary);
    free(rec[i].json_summary);
    free(rec[i].path);
    free(rec[i].reduced);
  }
  free(rec);
  recordings_expand_free(paths, n);
  free(o.source_root);
  return status;
}

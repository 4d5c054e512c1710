/* launcher_test.c - unit tests of the cudalens launcher's helpers
 * (launcher.c built with -DCL_LAUNCHER_NO_MAIN): LD_PRELOAD building (a
 * sanitizer runtime first), exit-status mapping, option parsing, shim and
 * report candidates, manifest lines, the --fail-on verdicts, and the -o
 * PATTERN checks it makes with common/outpath.c (the folder to make, mkdir
 * -p). */
#include "config.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudalens/outpath.h"
#include "launcher/launcher.h"
#include "../unit.h"

static void check_preload_first(const char *shim, const char *existing,
                                const char *runtime, const char *want)
{
  char *got = cl_build_preload(shim, existing, runtime);
  if (!want) {
    if (got) {
      fprintf(stderr, "preload(%s, %s): got '%s', want NULL\n", shim,
              existing ? existing : "(null)", got);
      unit_failures++;
    }
  } else if (!got || strcmp(got, want) != 0) {
    fprintf(stderr, "preload(%s, %s): got '%s', want '%s'\n", shim,
            existing ? existing : "(null)", got ? got : "(null)", want);
    unit_failures++;
  }
  free(got);
}

static void check_preload(const char *shim, const char *existing,
                          const char *want)
{
  check_preload_first(shim, existing, NULL, want);
}

static void test_preload(void)
{
  const char *s = "/opt/cl/lib/libcudalens.so";
  check_preload(s, NULL, s);
  check_preload(s, "", s);
  check_preload(s, "  : ", s);
  check_preload(s, "/a/liba.so", "/opt/cl/lib/libcudalens.so:/a/liba.so");
  check_preload(s, "/a/liba.so:libb.so",
                "/opt/cl/lib/libcudalens.so:/a/liba.so:libb.so");
  check_preload(s, "/a/liba.so libb.so\tlibc2.so",
                "/opt/cl/lib/libcudalens.so:/a/liba.so:libb.so:libc2.so");
  check_preload(s, "::/a/liba.so::", "/opt/cl/lib/libcudalens.so:/a/liba.so");
  /* other copies of the shim are dropped, look-alikes kept */
  check_preload(s, "/opt/cl/lib/libcudalens.so:x.so",
                "/opt/cl/lib/libcudalens.so:x.so");
  check_preload(s, "libcudalens.so:/old/libcudalens.so:y.so",
                "/opt/cl/lib/libcudalens.so:y.so");
  check_preload(s, "libcudalens.so.1:/x/mylibcudalens.so",
                "/opt/cl/lib/libcudalens.so:libcudalens.so.1:/x/mylibcudalens.so");
  /* paths that LD_PRELOAD cannot carry */
  check_preload("/a b/libcudalens.so", "x.so", NULL);
  check_preload("/a:b/libcudalens.so", NULL, NULL);
  check_preload("", NULL, NULL);
  /* AddressSanitizer's runtime first: the program's, or one already there
   * (kept where it is among such runtimes, never twice) */
  check_preload_first(s, "/a/liba.so", "libasan.so.8",
                      "libasan.so.8:/opt/cl/lib/libcudalens.so:/a/liba.so");
  check_preload_first(s, NULL, "libasan.so.8",
                      "libasan.so.8:/opt/cl/lib/libcudalens.so");
  check_preload(s, "/a/liba.so:/usr/lib/libasan.so.8",
                "/usr/lib/libasan.so.8:/opt/cl/lib/libcudalens.so:/a/liba.so");
  check_preload_first(s, "/usr/lib/libasan.so.8 x.so", "libasan.so.8",
                      "/usr/lib/libasan.so.8:/opt/cl/lib/libcudalens.so:x.so");
  check_preload(s, "libtsan.so.2:libhwasan.so",
                "libhwasan.so:/opt/cl/lib/libcudalens.so:libtsan.so.2");
  check_preload_first(s, NULL, "lib asan.so", NULL);
  check_preload_first(s, NULL, "", NULL);
}

static void test_first_runtime(void)
{
  static const struct {
    const char *name;
    bool first;
  } cases[] = {
      {"libasan.so.8", true},          {"/usr/lib/libasan.so", true},
      {"libhwasan.so", true},          {"libclang_rt.asan-x86_64.so", true},
      {"libclang_rt.hwasan-aarch64.so", true},
      {"libtsan.so.2", false},         {"libubsan.so.1", false},
      {"mylibasan.so", false},         {"/libasan/liba.so", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    if (cl_first_runtime(cases[i].name, strlen(cases[i].name)) != cases[i].first) {
      fprintf(stderr, "first runtime %s: got %d\n", cases[i].name, !cases[i].first);
      unit_failures++;
    }
  /* no such file, no ELF, an executable that needs none (this one) */
  char out[256] = "";
  if (cl_needed_runtime("/nonexistent/app", out, sizeof out) ||
      cl_needed_runtime("/dev/null", out, sizeof out) ||
      cl_needed_runtime("/proc/self/exe", out, sizeof out)) {
    fprintf(stderr, "needed runtime: found '%s' where there is none\n", out);
    unit_failures++;
  }
}

static int status_of(void (*body)(void))
{
  pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(99);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return st;
}

static void exit3(void) { _exit(3); }
static void exit0(void) { _exit(0); }
static void killed(void)
{
  signal(SIGTERM, SIG_DFL);
  raise(SIGTERM);
}
static void segv(void)
{
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
}

static void test_exit_code(void)
{
  CHECK(cl_exit_code(status_of(exit3)) == 3);
  CHECK(cl_exit_code(status_of(exit0)) == 0);
  CHECK(cl_exit_code(status_of(killed)) == 128 + SIGTERM);
  CHECK(cl_exit_code(status_of(segv)) == 128 + SIGSEGV);
}

static int parse(struct cl_run_opts *o, int argc, ...)
{
  static char *argv[16];
  va_list ap;
  va_start(ap, argc);
  for (int i = 0; i < argc; i++)
    argv[i] = va_arg(ap, char *);
  va_end(ap);
  argv[argc] = NULL;
  return cl_parse_run(argc, argv, o);
}

static void test_parse(void)
{
  struct cl_run_opts o;
  CHECK(parse(&o, 2, "ls", "-l") == 0 && !o.output &&
        strcmp(o.cmd[0], "ls") == 0 && strcmp(o.cmd[1], "-l") == 0 && !o.cmd[2]);
  CHECK(parse(&o, 3, "--", "ls", "-o") == 0 && !o.output &&
        strcmp(o.cmd[0], "ls") == 0 && strcmp(o.cmd[1], "-o") == 0);
  CHECK(parse(&o, 4, "-o", "x-%p.db", "--", "app") == 0 && o.output &&
        strcmp(o.output, "x-%p.db") == 0 && strcmp(o.cmd[0], "app") == 0);
  CHECK(parse(&o, 2, "-oy.db", "app") == 0 && strcmp(o.output, "y.db") == 0);
  CHECK(parse(&o, 2, "--output=z.db", "app") == 0 &&
        strcmp(o.output, "z.db") == 0);
  CHECK(parse(&o, 3, "--output", "w.db", "app") == 0 &&
        strcmp(o.output, "w.db") == 0);
  /* options after the command belong to it */
  CHECK(parse(&o, 3, "app", "-o", "q") == 0 && !o.output &&
        strcmp(o.cmd[1], "-o") == 0);
  CHECK(parse(&o, 1, "--help") == 0 && o.help);
  CHECK(parse(&o, 0) == -1 && strstr(o.error, "no command"));
  CHECK(parse(&o, 1, "--") == -1 && strstr(o.error, "no command"));
  CHECK(parse(&o, 2, "-o", "x.db") == -1 && strstr(o.error, "no command"));
  CHECK(parse(&o, 1, "-o") == -1 && strstr(o.error, "PATTERN"));
  CHECK(parse(&o, 3, "-o", "", "app") == -1 && strstr(o.error, "empty"));
  CHECK(parse(&o, 2, "-x", "app") == -1 && strstr(o.error, "unknown option"));
  CHECK(parse(&o, 2, "ls", "-l") == 0 && !o.fail_on);
  CHECK(parse(&o, 2, "ls", "-l") == 0 && !o.reduce);
  CHECK(parse(&o, 3, "--reduce", "app", "--reduce") == 0 && o.reduce &&
        strcmp(o.cmd[0], "app") == 0 && strcmp(o.cmd[1], "--reduce") == 0);
  CHECK(parse(&o, 2, "ls", "-l") == 0 && !o.footprint);
  CHECK(parse(&o, 4, "--footprint", "--", "app", "--footprint") == 0 &&
        o.footprint && strcmp(o.cmd[0], "app") == 0 &&
        strcmp(o.cmd[1], "--footprint") == 0);
  CHECK(parse(&o, 2, "--fail-on=error", "app") == 0 && o.fail_on &&
        strcmp(o.fail_on, "error") == 0 && strcmp(o.cmd[0], "app") == 0);
  CHECK(parse(&o, 5, "--fail-on", "note", "-o", "r.db", "app") == 0 &&
        strcmp(o.fail_on, "note") == 0 && strcmp(o.output, "r.db") == 0);
  CHECK(parse(&o, 3, "--fail-on=warning", "--", "app") == 0 &&
        strcmp(o.fail_on, "warning") == 0);
  CHECK(parse(&o, 2, "--fail-on=fatal", "app") == -1 &&
        strstr(o.error, "unknown severity 'fatal'"));
  CHECK(parse(&o, 2, "--fail-on=", "app") == -1 &&
        strstr(o.error, "unknown severity"));
  CHECK(parse(&o, 1, "--fail-on") == -1 && strstr(o.error, "SEVERITY"));
  CHECK(parse(&o, 2, "--fail-onx", "app") == -1 &&
        strstr(o.error, "unknown option"));
}

static void test_report_candidates(void)
{
  char c[3][PATH_MAX];
  int n = cl_report_candidates("/b", "/usr/bin/cudalens-report", c, 3);
  CHECK(n == 2);
  CHECK(strcmp(c[0], "/b/cudalens-report") == 0);
  CHECK(strcmp(c[1], "/usr/bin/cudalens-report") == 0);
  n = cl_report_candidates(NULL, "/usr/bin/cudalens-report", c, 3);
  CHECK(n == 1 && strcmp(c[0], "/usr/bin/cudalens-report") == 0);
  CHECK(cl_report_candidates("/b", "", c, 3) == 1);
  CHECK(cl_report_candidates("/b", "/i", c, 1) == 1);
}

static void exit1(void) { _exit(1); }
static void exit2(void) { _exit(2); }

static void test_fail_on(void)
{
  CHECK(cl_report_verdict(status_of(exit0)) == 0);
  CHECK(cl_report_verdict(status_of(exit1)) == 1);
  CHECK(cl_report_verdict(status_of(exit2)) == 2);
  CHECK(cl_report_verdict(status_of(exit3)) == 2);
  CHECK(cl_report_verdict(status_of(segv)) == 2);
  /* the program's own failure wins, then a missing report, then findings */
  CHECK(cl_fail_on_status(0, 0, 0) == 0);
  CHECK(cl_fail_on_status(0, 0, 2) == 1);
  CHECK(cl_fail_on_status(0, 1, 0) == 2);
  CHECK(cl_fail_on_status(0, 1, 3) == 2);
  CHECK(cl_fail_on_status(3, 0, 1) == 3);
  CHECK(cl_fail_on_status(1, 0, 0) == 1);
  CHECK(cl_fail_on_status(139, 1, 1) == 139);
}

static void check_folder(const char *pattern, int want_rc, const char *want)
{
  char out[4096], err[256] = "";
  int rc = cl_outpath_folder(pattern, out, sizeof out, err, sizeof err);
  if (rc != want_rc || (rc == 0 && strcmp(out, want) != 0)) {
    fprintf(stderr, "folder(%s): got %d '%s' (%s), want %d '%s'\n", pattern,
            rc, rc ? "" : out, err, want_rc, want ? want : "");
    unit_failures++;
  }
}

static void test_output_folder(void)
{
  char host[256], want[600];
  gethostname(host, sizeof host);
  check_folder("x.db", 0, "");
  check_folder("cudalens-%p.db", 0, "");
  check_folder("/x.db", 0, "");
  check_folder("runs/x.db", 0, "runs");
  check_folder("runs/%p.db", 0, "runs");
  check_folder("/tmp/a/b/r-%p.db", 0, "/tmp/a/b");
  check_folder("a//b/x.db", 0, "a//b");
  /* a folder named by %p cannot exist before the process starts */
  check_folder("runs/%p/x.db", -1, NULL);
  check_folder("a/b%pc/d/x.db", -1, NULL);
  check_folder("runs/100%%p/x.db", 0, "runs/100%p");
  /* %q{VAR}: made with VAR's value here; VAR not set here: the folder
   * before it is made, and one matching it must exist */
  setenv("LT_RANK", "3", 1);
  unsetenv("LT_UNSET");
  check_folder("runs/rank%q{LT_RANK}/x.db", 0, "runs/rank3");
  check_folder("%q{LT_RANK}/x.db", 0, "3");
  check_folder("runs/rank%q{LT_UNSET}/x.db", -1, NULL);
  check_folder("/rank%q{LT_UNSET}-nonexistent/x.db", -1, NULL);
  check_folder("%q{LT_UNSET}/x.db", 0, ""); /* "." has some folder */
  /* naming a folder */
  check_folder("runs/", -1, NULL);
  check_folder("/", -1, NULL);
  /* %h and %% are the same for all: expanded */
  snprintf(want, sizeof want, "out-%s/100%%", host);
  check_folder("out-%h/100%%/x.db", 0, want);
  check_folder("a%%/b.db", 0, "a%");
  check_folder("bad%z/x.db", -1, NULL);
}

static void test_make_folders(void)
{
  char tmpl[] = "/tmp/launcher_test.XXXXXX", path[PATH_MAX], err[512];
  struct stat st;
  CHECK(mkdtemp(tmpl) != NULL);
  snprintf(path, sizeof path, "%s/a/b//c", tmpl);
  CHECK(cl_make_folders(path, err, sizeof err) == 0);
  CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
  CHECK(cl_make_folders(path, err, sizeof err) == 0); /* already there */
  snprintf(path, sizeof path, "%s/file", tmpl);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f)
    fclose(f);
  snprintf(path, sizeof path, "%s/file/sub", tmpl);
  CHECK(cl_make_folders(path, err, sizeof err) == -1 &&
        strstr(err, "/file'") && strstr(err, "Not a directory"));
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
  CHECK(system(cmd) == 0);
}

static void test_candidates(void)
{
  char c[4][PATH_MAX];
  int n = cl_shim_candidates("/b", "/usr/lib/libcudalens.so", c, 4);
  CHECK(n == 3);
  CHECK(strcmp(c[0], "/b/.libs/libcudalens.so") == 0);
  CHECK(strcmp(c[1], "/usr/lib/libcudalens.so") == 0);
  CHECK(strcmp(c[2], "/b/../lib/libcudalens.so") == 0);
  n = cl_shim_candidates(NULL, "/usr/lib/libcudalens.so", c, 4);
  CHECK(n == 1 && strcmp(c[0], "/usr/lib/libcudalens.so") == 0);
  CHECK(cl_shim_candidates("/b", "/i", c, 2) == 2);
}

static void test_manifest(void)
{
  const char *text = "/w/cudalens-1.db\n\n/w/sub/cudalens-2.db \r\n/x.db";
  const char *p = text, *line;
  size_t n, dn;
  CHECK(cl_manifest_next(&p, &line, &n) == 1 && n == 16 &&
        memcmp(line, "/w/cudalens-1.db", n) == 0);
  const char *d = cl_display_path(line, n, "/w", &dn);
  CHECK(dn == 13 && memcmp(d, "cudalens-1.db", dn) == 0);
  d = cl_display_path(line, n, "/", &dn);
  CHECK(dn == n && d == line);
  d = cl_display_path(line, n, "/ww", &dn);
  CHECK(dn == n && d == line);
  CHECK(cl_manifest_next(&p, &line, &n) == 1 && n == 20 &&
        memcmp(line, "/w/sub/cudalens-2.db", n) == 0);
  d = cl_display_path(line, n, "/w", &dn);
  CHECK(dn == 17 && memcmp(d, "sub/cudalens-2.db", dn) == 0);
  CHECK(cl_manifest_next(&p, &line, &n) == 1 && n == 5 &&
        memcmp(line, "/x.db", n) == 0);
  CHECK(cl_manifest_next(&p, &line, &n) == 0);
  p = "";
  CHECK(cl_manifest_next(&p, &line, &n) == 0);
  p = "\n \n";
  CHECK(cl_manifest_next(&p, &line, &n) == 0);

  /* a process not recorded in full: "!PID NAME<TAB>WHY" */
  long pid;
  const char *name, *why;
  size_t nl, wl;
  const char *prob = "!42 my app\tcannot create 'x': Is a directory";
  CHECK(cl_manifest_problem(prob, strlen(prob), &pid, &name, &nl, &why, &wl) &&
        pid == 42 && nl == 6 && memcmp(name, "my app", nl) == 0 &&
        wl == strlen("cannot create 'x': Is a directory") &&
        memcmp(why, "cannot create", 13) == 0);
  CHECK(cl_manifest_problem("!x", 2, &pid, &name, &nl, &why, &wl) &&
        pid == 0 && wl == 1);
  CHECK(!cl_manifest_problem("/w/x.db", 7, &pid, &name, &nl, &why, &wl));
}

int main(void)
{
  test_preload();
  test_first_runtime();
  test_exit_code();
  test_parse();
  test_candidates();
  test_report_candidates();
  test_manifest();
  test_fail_on();
  test_output_folder();
  test_make_folders();
  if (unit_failures) {
    fprintf(stderr, "launcher_test: %d failure(s)\n", unit_failures);
    return 1;
  }
  printf("launcher_test: all passed\n");
  return 0;
}

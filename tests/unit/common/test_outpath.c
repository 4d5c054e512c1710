/* test_outpath.c - unit test of the output path pattern (%p %h %q{VAR} %%;
 * a variable cannot lead out of the pattern's folder) and of exclusive
 * creation: never overwrite, never follow a symlink, owner-only. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/outfile.h"
#include "shim/shim.h"
#include "../unit.h"

int main(void)
{
  char out[4096], err[256], host[256];
  CHECK(cl_outpath_expand("cudalens-%p.db", 1234, out, sizeof out, err,
                          sizeof err) == 0);
  CHECK_STR(out, "cudalens-1234.db");
  gethostname(host, sizeof host);
  char want[600];
  snprintf(want, sizeof want, "x-%s-7.db", host);
  CHECK(cl_outpath_expand("x-%h-%p.db", 7, out, sizeof out, err, sizeof err) == 0);
  CHECK_STR(out, want);
  setenv("CL_TEST_RANK", "3", 1);
  CHECK(cl_outpath_expand("r%q{CL_TEST_RANK}_%%.db", 1, out, sizeof out, err,
                          sizeof err) == 0);
  CHECK_STR(out, "r3_%.db");
  CHECK(cl_outpath_expand("r%q{CL_TEST_UNSET_VAR}.db", 1, out, sizeof out, err,
                          sizeof err) == 0);
  CHECK_STR(out, "r.db");
  /* a value makes no folder and no "." or ".." component; the pattern's own
   * components are kept */
  setenv("CL_TEST_PATHLIKE", "../up/x", 1);
  CHECK(cl_outpath_expand("out/%q{CL_TEST_PATHLIKE}.db", 1, out, sizeof out,
                          err, sizeof err) == 0);
  CHECK_STR(out, "out/.._up_x.db");
  setenv("CL_TEST_DOTS", "..", 1);
  CHECK(cl_outpath_expand("out/%q{CL_TEST_DOTS}/r.db", 1, out, sizeof out, err,
                          sizeof err) == 0);
  CHECK_STR(out, "out/__/r.db");
  CHECK(cl_outpath_expand("%q{CL_TEST_DOTS}", 1, out, sizeof out, err,
                          sizeof err) == 0);
  CHECK_STR(out, "__");
  setenv("CL_TEST_DOT", ".", 1);
  CHECK(cl_outpath_expand("out/.%q{CL_TEST_DOT}/r.db", 1, out, sizeof out, err,
                          sizeof err) == 0);
  CHECK_STR(out, "out/._/r.db");
  CHECK(cl_outpath_expand("../%q{CL_TEST_DOT}x/./%p.db", 5, out, sizeof out,
                          err, sizeof err) == 0);
  CHECK_STR(out, "../.x/./5.db");
  CHECK(cl_outpath_expand("bad%x", 1, out, sizeof out, err, sizeof err) == -1);
  CHECK(strstr(err, "%x") != NULL);
  CHECK(cl_outpath_expand("bad%q{", 1, out, sizeof out, err, sizeof err) == -1);
  CHECK(cl_outpath_expand("trailing%", 1, out, sizeof out, err, sizeof err) == -1);
  CHECK(cl_outpath_expand("", 1, out, sizeof out, err, sizeof err) == -1);
  char small[8];
  CHECK(cl_outpath_expand("%p%p%p", 123456, small, sizeof small, err,
                          sizeof err) == -1);

  /* exclusive creation in a scratch directory: the file appears with its
   * contents (through a hidden temporary file that does not stay) */
  char dir[] = "/tmp/cl-outpath-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[4200], chosen[4300];
  static const char body[] = "SQLite format 3";
  snprintf(path, sizeof path, "%s/a.db", dir);
  CHECK(cl_outpath_publish(path, body, sizeof body, chosen, sizeof chosen, err,
                           sizeof err) == 0);
  CHECK_STR(chosen, path);
  /* it holds the command line: the owner's only, whatever the umask */
  struct stat st;
  mode_t mask = umask(0);
  CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
  CHECK(st.st_size == (off_t)sizeof body);
  unlink(path);
  CHECK(cl_outpath_publish(path, body, sizeof body, chosen, sizeof chosen, err,
                           sizeof err) == 0);
  umask(mask);
  CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
  CHECK(cl_outpath_publish(path, body, sizeof body, chosen, sizeof chosen, err,
                           sizeof err) == 0);
  snprintf(want, sizeof want, "%s/a.1.db", dir);
  CHECK_STR(chosen, want);
  /* a symlink at the name is never followed; a fresh name is picked */
  char target[4200], link[4200];
  snprintf(target, sizeof target, "%s/target", dir);
  snprintf(link, sizeof link, "%s/l.db", dir);
  CHECK(symlink(target, link) == 0);
  CHECK(cl_outpath_publish(link, body, sizeof body, chosen, sizeof chosen, err,
                           sizeof err) == 0);
  snprintf(want, sizeof want, "%s/l.1.db", dir);
  CHECK_STR(chosen, want);
  CHECK(stat(target, &st) == -1 && errno == ENOENT);
  /* nothing but the four names: no temporary file stays */
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 4", dir);
  CHECK(system(cmd) == 0);
  /* a name that is no regular file (a device, a folder) is an error, not
   * numbered: CUDALENS_OUTPUT=/dev/null made /dev/null.1 (issue 24) */
  CHECK(cl_outpath_publish("/dev/null", body, sizeof body, chosen,
                           sizeof chosen, err, sizeof err) == -1);
  CHECK(strstr(err, "not a regular file") != NULL);
  CHECK(stat("/dev/null.1", &st) == -1);
  CHECK(cl_outpath_publish(dir, body, sizeof body, chosen, sizeof chosen, err,
                           sizeof err) == -1);
  CHECK(strstr(err, "not a regular file") != NULL);
  /* an unwritable place gives an error message */
  CHECK(cl_outpath_publish("/proc/cl-no/x.db", body, sizeof body, chosen,
                           sizeof chosen, err, sizeof err) == -1);
  CHECK(strstr(err, "cannot create") != NULL);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  UNIT_DONE();
}

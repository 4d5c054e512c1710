/* launcher.h - the testable helpers of the cudalens launcher (launcher.c),
 * declared for launcher/launcher_test.c. */
#ifndef CUDALENS_LAUNCHER_H
#define CUDALENS_LAUNCHER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct cl_run_opts {
  const char *output; /* -o PATTERN, or NULL */
  const char *fail_on; /* --fail-on=SEVERITY (error, warning, note), or NULL */
  char **cmd;         /* the command and its arguments (NULL-terminated) */
  bool help;          /* `cudalens run --help` */
  bool reduce;        /* --reduce: each recording reduced after the run */
  bool footprint;     /* --footprint: a footprint run first (issue 23) */
  char error[256];    /* why parsing failed */
};

/* The new LD_PRELOAD: the sanitizer runtimes that must be loaded first
 * (cl_first_runtime) among the entries of `existing` (colon or blank
 * separated), then `runtime` (the one the program needs, or NULL) unless
 * one of those has its file name, then the shim, then every other entry of
 * `existing` in order; joined by colons, without empty entries and without
 * other cudalens shims.  NULL when the shim path or `runtime` cannot be
 * carried by LD_PRELOAD (empty, or holds a colon or blank) or out of
 * memory.  Free the result. */
char *cl_build_preload(const char *shim, const char *existing,
                       const char *runtime);

/* Is the N-byte path E a sanitizer runtime that must be the first library
 * of a process (AddressSanitizer's and HWAddressSanitizer's, GCC's and
 * Clang's): a library preloaded before it stops the program at start? */
bool cl_first_runtime(const char *e, size_t n);

/* The DT_NEEDED entry of the 64-bit ELF FILE that names such a runtime,
 * into OUT (SIZE bytes): 1, or 0 when it has none or is no such file. */
int cl_needed_runtime(const char *file, char *out, size_t size);

/* The launcher's exit code for a waitpid status: the child's exit code, or
 * 128+signo when a signal ended it. */
int cl_exit_code(int wstatus);

/* Parses the arguments after `run`.  0 on success (o->cmd set, or o->help),
 * -1 with o->error on a usage error. */
int cl_parse_run(int argc, char **argv, struct cl_run_opts *o);

/* Fills out[] with the shim paths to try, in order, given the directory of
 * the launcher's executable (may be NULL) and the installed path; returns
 * how many. */
int cl_shim_candidates(const char *exe_dir, const char *installed,
                       char out[][PATH_MAX], int max);

/* Fills out[] with the cudalens-report paths to try, in order: beside the
 * launcher (the same bin folder, or the top of the build tree), then the
 * installed path; returns how many. */
int cl_report_candidates(const char *exe_dir, const char *installed,
                         char out[][PATH_MAX], int max);

/* What one `cudalens-report --fail-on` run said, from its waitpid status:
 * 0 no finding at or above the severity, 1 some, 2 no report (its exit 2,
 * any other code, or a death by signal). */
int cl_report_verdict(int wstatus);

/* The exit status of `cudalens run --fail-on`: the program's own code when
 * it is not 0; else 2 when something could not be checked (the report, of
 * all the recordings, one run of cudalens-report, could not be made, or a
 * process was not recorded in full), 1 when the report has a finding at or
 * above the severity, 0 otherwise. */
int cl_fail_on_status(int program_code, int not_checked,
                      int reports_with_findings);

/* Iterates over the non-empty lines of a manifest: sets *line and *len
 * (trailing blanks trimmed) and advances *p; 0 at the end. */
int cl_manifest_next(const char **p, const char **line, size_t *len);

/* Whether a manifest line (cl_manifest_next) says that a process was not
 * recorded, or not in full: "!PID NAME<TAB>WHY" (shim/manifest.c); then
 * sets *pid (0 when unreadable), NAME and WHY.  Other lines are paths. */
int cl_manifest_problem(const char *line, size_t len, long *pid,
                        const char **name, size_t *name_len, const char **why,
                        size_t *why_len);

/* path[0..len) as shown to the user: relative when it lies under cwd. */
const char *cl_display_path(const char *path, size_t len, const char *cwd,
                            size_t *out_len);

#endif

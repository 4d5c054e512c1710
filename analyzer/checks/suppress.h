/* suppress.h - suppressions: findings a project has looked at and accepts,
 * left out of the report and of --fail-on, as valgrind's and the
 * sanitizers' suppression files do.  Entries come from suppression files
 * (--suppressions=FILE, CUDALENS_SUPPRESSIONS), one a line:
 *
 *   # a comment
 *   KIND [FIELD=GLOB]...
 *
 * KIND is a registry kind (checks.def) or '*'; FIELD is function, file,
 * kernel, module, fingerprint or at; GLOB an fnmatch(3) pattern ('\' quotes
 * the next character, so '\ ' is a space inside a glob).  An entry
 * matches a finding of its kind whose places (its location and related
 * locations, not its details: findings.h) have a function, a file and an object (module) matching the
 * globs given, each in some place, whose kernels include one matching
 * kernel=, whose fingerprint matches fingerprint=, and one of whose places
 * as the text report shows it ("file:line", "object+0xoffset") matches
 * each at= (at= may be given more than once: a finding of several places).
 * A file, module or at glob that does not start with '/' also matches the
 * end of a path that follows a '/' ("src/a.cu:12" matches
 * "/home/me/proj/src/a.cu:12"; "a.cu", the basename), so that entries
 * relative to a checkout match in every checkout.  --disable=KIND
 * suppresses every finding of a kind.  cudalens-report(1), SUPPRESSIONS. */
#ifndef CL_REPORT_SUPPRESS_H
#define CL_REPORT_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "checks/checks.h"
#include "checks/findings.h"

enum supp_field {
  SUPP_FUNCTION,
  SUPP_FILE,
  SUPP_KERNEL,
  SUPP_MODULE,
  SUPP_FINGERPRINT,
  SUPP_AT,
  SUPP_FIELD_COUNT
};

struct supp_entry {
  int check;                       /* check id; -1 for every kind ('*') */
  char *glob[SUPP_FIELD_COUNT];    /* NULL: any (at: the first at=) */
  char **more_at;                  /* at= given again: each must match */
  size_t nmore_at;
  size_t source;                   /* index in suppressions.sources */
  int line;                        /* of the entry in its file */
};

struct suppressions {
  struct supp_entry *v;
  size_t n, cap;
  char **sources;                  /* the files, as named; then "--disable" */
  size_t nsources, cap_sources;
  bool disabled[CHECK_COUNT];      /* --disable */
  bool any_disabled;
};

/* the findings suppressions took out of a report, and what took them */
struct suppressed {
  struct findings list;            /* in report order */
  char **origin;                   /* per finding: "FILE:LINE" or
                                      "--disable" */
  size_t norigin_cap;
  const char *const *sources;      /* the suppressions' sources */
  size_t nsources;
  size_t *counts;                  /* per source: findings it suppressed */
  bool active;                     /* any suppression was given */
};

void suppressions_init(struct suppressions *s);
void suppressions_free(struct suppressions *s);
/* Read the entries of the suppression file PATH.  0, or -1 with *ERR a
 * one-line message "PATH:LINE: what is wrong" (malloc'd). */
int suppressions_load(struct suppressions *s, const char *path, char **err);
/* KINDS: a comma-separated list of registry kinds to drop.  0, or -1 with
 * *ERR a one-line message (malloc'd). */
int suppressions_disable(struct suppressions *s, const char *kinds,
                         char **err);

/* whether ENTRY matches finding F */
bool supp_entry_matches(const struct supp_entry *e, const struct finding *f);

/* Move the findings of FS that a suppression matches (--disable first,
 * then the entries in the order they were read) into OUT, counted by the
 * source that matched first.  FS keeps the others, in order.  OUT refers
 * to S's sources: free it before S. */
void suppressions_apply(const struct suppressions *s, struct findings *fs,
                        struct suppressed *out);
void suppressed_free(struct suppressed *out);

/* Write an entry for every finding of FS, each after a comment naming the
 * finding.  By default as narrow as the finding: its kind and every one of
 * its places (at=, the fingerprint's places), with kernel= where that does
 * not tell it from another finding of FS; a new finding, even of the same
 * kind in the same function, matches none.  BROAD: its kind, function and
 * file (or object), made narrower only where that would match another
 * finding of FS.  Files under BASE (NULL: none) are written relative to
 * it. */
void suppressions_generate(FILE *f, const struct findings *fs, bool broad,
                           const char *base);

#endif

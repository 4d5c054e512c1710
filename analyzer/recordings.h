/* recordings.h - the recordings one report covers: the files and folders
 * named on the command line (a folder stands for its *.db files), each
 * analyzed on its own into a summary and findings, and the order the
 * report shows them in. */
#ifndef CL_REPORT_RECORDINGS_H
#define CL_REPORT_RECORDINGS_H

#include <stddef.h>

#include "checks/findings.h"
#include "model/summary.h"

struct timeline;
struct coll_log;

struct recording {
  char *path;            /* as named; a folder's entries as FOLDER/NAME */
  struct summary sum;
  struct findings fs;    /* its own findings (emptied by merge_findings) */
  struct timeline *tl;   /* for --format=perfetto/html, else NULL */
  struct coll_log *colls; /* its NCCL collectives (find_collectives.h) */
  /* read from its reduced result (reduced.h): SUM holds only the rank and
   * pid, and these the summary as the text and JSON reports print it */
  char *text_summary, *json_summary;
  char *reduced;         /* that reduced result's path, else NULL */
};

/* The paths ARGS[0..NARGS) name, sorted as text: a folder stands for the
 * regular files in it whose names end in ".db" (not those starting with a
 * dot; not recursively), joined as FOLDER/NAME.  Exits 2 with one line for
 * a folder that cannot be read or has no recording, and for a file named
 * twice (the same file under two names included).  Other paths are left to
 * db_open, which names what is wrong with them.  With REDUCED_TOO, a
 * folder also stands for its reduced results (X.cldr, reduced.h) whose
 * recording (X.db) is not in it.  *N gets the count. */
char **recordings_expand(char *const *args, size_t nargs, int reduced_too,
                         size_t *n);
void recordings_expand_free(char **paths, size_t n);

/* Report order: by rank when every recording has one, else recordings with
 * a rank first (by rank); then by pid (as a number), then by path.  The
 * same recordings named in any order come out the same. */
void recordings_order(struct recording *r, size_t n);
/* do all of R[0..N) have a rank (then a merged report names ranks)? */
int recordings_all_ranked(const struct recording *r, size_t n);

#endif

/* reduced.h - a recording reduced to what a report of many processes needs
 * from it (issue 25: a thousand ranks): its findings with their places and
 * fingerprints resolved, its rank and pid, its summary as the text and JSON
 * reports print it, and its NCCL collectives with their call sites (for
 * collective-mismatch, which compares ranks).  `cudalens-report --reduce
 * REC.db` writes REC.cldr beside the recording, where it was recorded (the
 * launcher can do it at exit: `cudalens run --reduce`); a report of many
 * recordings reads a rank's REC.cldr instead of REC.db when it is current,
 * so its memory and time grow with the findings, not the calls.  The report
 * is the same bytes either way.
 *
 * The file is text, one record a line, fields separated by one space:
 *   cudalens-reduced 1              format and version (first line)
 *   report VERSION                  the cudalens-report that wrote it
 *   stack N                         its --stack (the callers it resolved)
 *   source SIZE MTIME WSIZE WMTIME  the recording (and its -wal; -1: none)
 *                                   it was made from, mtimes in ns
 *   process RANK PID                meta rank (-1: none) and pid
 *   text STR / json STR             the summary as printed
 *   finding KIND SEVERITY COUNT COST_NS FINGERPRINT MESSAGE FIX
 *                                   then its loc, and its extra, kernel,
 *                                   op and related lines (a related's loc
 *                                   line follows it)
 *   loc FILE LINE FUNCTION MODULE OFFSET HAS_STACK FROM_PYTHON STACK_ID
 *       PYSTACK_ID STACK_FRAME PY_FRAME NCALLERS    then NCALLERS loc lines
 *   site + loc fields               a collective's call site
 *   coll SEQ COMM RANK NRANKS KIND COUNT DATATYPE ROOT REDOP SITE
 *   end CHECKSUM                    FNV-1a (64 bits, 16 hex digits) of
 *                                   every byte before this line; a file
 *                                   without it is truncated
 * A string STR is "-" for none, else '=' and its bytes, those under 0x21,
 * 0x7f and '%' written %HH. */
#ifndef CL_REPORT_REDUCED_H
#define CL_REPORT_REDUCED_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "recordings.h"

struct coll_log;

#define REDUCED_FORMAT "cudalens-reduced"
#define REDUCED_VERSION 1
#define REDUCED_EXT ".cldr"

/* the reduced result's path for the recording PATH: X.db -> X.cldr, else
 * PATH.cldr (malloc'd) */
char *reduced_path(const char *recording);
/* is PATH a reduced result (named *.cldr)? */
bool reduced_named(const char *path);
/* the recording a reduced result stands for: X.cldr -> X.db (malloc'd) */
char *reduced_recording(const char *reduced);

/* Write R (analyzed with --stack=STACK, findings not made relative to a
 * source root; its summary rendered here) as the reduced result OUT of the
 * recording R->path.  Written to a temporary file renamed into place, so a
 * reader never sees half of one.  0, or -1 with *ERR (malloc'd). */
int reduced_write(const char *out, const struct recording *r, size_t stack,
                  char **err);

/* Read the reduced result PATH into R (R->path is left as it is).  With
 * RECORDING (the recording R stands for), the result must have been made
 * from it as it is now (size and mtime of it and of its -wal), by this
 * cudalens-report, with --stack=STACK; else, and when the file is not a
 * complete reduced result, -1 with *ERR (malloc'd) and R untouched.
 * Without RECORDING (only the reduced result is there) the version and
 * --stack are still checked.  0 when read. */
int reduced_read(const char *path, const char *recording, size_t stack,
                 struct recording *r, char **err);

/* Read again, from the reduced result PATH (read before with --stack=STACK),
 * only its collectives of communicator COMM_ID at places [LO, HI) of each
 * rank's, with every call site, into L, whose collectives and sites are
 * replaced (its sums are kept).  0, or -1 with *ERR (malloc'd). */
int reduced_read_window(const char *path, size_t stack, int64_t comm_id,
                        size_t lo, size_t hi, struct coll_log *l, char **err);

#endif

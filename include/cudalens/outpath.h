/* outpath.h - the output pattern rule (common/outpath.c), shared by the shim
 * and the cudalens launcher. */
#ifndef CUDALENS_OUTPATH_H
#define CUDALENS_OUTPATH_H

#include <stddef.h>
#include <sys/types.h>

#include "cudalens/visibility.h"

/* Expands %p %h %q{VAR} %% of pattern into out; 0, or -1 with a one-line
 * message in err (unknown escape, bad %q, too long, empty). */
int cl_outpath_expand(const char *pattern, pid_t pid, char *out, size_t outsz,
                      char *err, size_t errsz) CL_HIDDEN;

/* The folder the launcher makes before the program starts, so that every
 * process of a run can write into it (the shim makes none): the pattern's
 * folder part, expanded with this process's environment for %q{VAR}.  -1
 * with a message for a pattern that cannot work: one ending in '/' (a
 * folder, not a file), a folder named with %p (no process exists yet), or
 * one named with a %q{VAR} whose VAR is not set here (set later, as
 * torchrun sets RANK) when no folder matching it exists (the user's to
 * make; then out is the folder before it).  out is "" when there is none to
 * make (a bare file name, "/x.db").  0, or -1 with a message. */
int cl_outpath_folder(const char *pattern, char *out, size_t outsz, char *err,
                      size_t errsz) CL_HIDDEN;

/* mkdir -p: makes dir and its missing parents (mode 0777 less the umask).
 * 0, or -1 with a message naming the folder that could not be made. */
int cl_make_folders(const char *dir, char *err, size_t errsz) CL_HIDDEN;

#endif

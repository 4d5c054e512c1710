/* outfile.h - putting the recording's file in place (outfile.c). */
#ifndef CUDALENS_SHIM_OUTFILE_H
#define CUDALENS_SHIM_OUTFILE_H

#include "shim.h"

/* cl_outpath_expand: include/cudalens/outpath.h (common/outpath.c) */
/* Put a file holding buf (len bytes) at path, or path.1.db, ... when it
 * exists as a file, complete or not at all (no symlink followed, nothing
 * overwritten, a name that is no regular file never numbered); fills
 * chosen; 0, or -1 with a message in err. */
int cl_outpath_publish(const char *path, const void *buf, size_t len,
                       char *chosen, size_t chosensz, char *err, size_t errsz)
    CL_HIDDEN;

#endif

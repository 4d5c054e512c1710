/* tempdir.h - the report's private temporary directory (where it reads a
 * copy of a recording left in WAL mode in a read-only directory): removed,
 * with the files named at its creation, on every way out of the process:
 * db_close(), exit() from anywhere (errors included), and the termination
 * signals (HUP, INT, QUIT, TERM, PIPE). */
#ifndef CL_REPORT_TEMPDIR_H
#define CL_REPORT_TEMPDIR_H

/* Create the directory under $TMPDIR (else /tmp); NAMES is a NULL-ended
 * list of the file names that may be created in it (at most 8).  Returns
 * its path (owned here, valid until tempdir_remove), or NULL with errno
 * set.  One at a time. */
const char *tempdir_create(const char *const *names);
/* remove the files and the directory now (nothing when there is none) */
void tempdir_remove(void);

#endif

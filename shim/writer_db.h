/* writer_db.h - the SQLite side of the writer thread (writer_db.c): create the
 * recording, turn records into rows, close it.  Used only by writer.c. */
#ifndef CUDALENS_WRITER_DB_H
#define CUDALENS_WRITER_DB_H

#include "shim.h"

struct cl_db;
struct cl_db *cl_db_open(void) CL_HIDDEN;
void cl_db_begin(struct cl_db *db) CL_HIDDEN;
void cl_db_put(struct cl_db *db, const struct cl_record *r) CL_HIDDEN;
void cl_db_drop(struct cl_db *db, const char *reason, uint64_t n) CL_HIDDEN;
void cl_db_put_host_accesses(struct cl_db *db) CL_HIDDEN;
void cl_db_commit(struct cl_db *db) CL_HIDDEN;
void cl_db_close(struct cl_db *db, int clean) CL_HIDDEN;
void cl_db_forget_after_fork(void) CL_HIDDEN;

#endif

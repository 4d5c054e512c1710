/* writer_db.h - the SQLite side of the writer thread (writer_db.c): create the
 * recording, turn records into rows, close it; and the recording's
 * descriptors (dbfd.c).  Used only by the writer. */
#ifndef CUDALENS_WRITER_DB_H
#define CUDALENS_WRITER_DB_H

#include "shim.h"

struct cl_db;
struct cl_db *cl_db_open(void) CL_HIDDEN;
/* begin and commit: 0, or -1 once the recording has failed (said once) */
int cl_db_begin(struct cl_db *db) CL_HIDDEN;
/* (a call record's argument words at KARGS, nkargs of them, when not in
 * the record alone: writer.c's words_of; NULL: the record's) */
void cl_db_put(struct cl_db *db, const struct cl_record *r,
               const struct cl_karg *kargs) CL_HIDDEN;
/* N records of REASON lost, or, for the partial reasons below, N records
 * kept without part of what they held (counted in drops, not as lost) */
void cl_db_drop(struct cl_db *db, const char *reason, uint64_t n) CL_HIDDEN;
/* a launch's or graph node's argument words past CL_LAUNCH_KARGS */
#define CL_DROP_KARGS "kernel-args-beyond-limit"
/* removed allocations not kept to resolve a launch's words against */
#define CL_DROP_ALLOC_HISTORY "allocation-history"
void cl_db_put_host_accesses(struct cl_db *db) CL_HIDDEN;
/* how often and how long the program waited for room (cl_ring_waits), in
 * meta, when that changed */
void cl_db_put_waits(struct cl_db *db) CL_HIDDEN;
int cl_db_commit(struct cl_db *db) CL_HIDDEN;
int cl_db_failed(const struct cl_db *db) CL_HIDDEN;
/* failed by a write error (disk full): kept open, records still given to
 * it are counted as lost, and the count written when it fits */
int cl_db_counts_losses(const struct cl_db *db) CL_HIDDEN;
/* Close, noting how the process ended (meta end: "exit", "signal", "_exit",
 * ...) and whether everything was written (meta clean_exit). */
void cl_db_close(struct cl_db *db, const char *end, int clean) CL_HIDDEN;
/* Before an exec: write the end, close the connection but keep db; after an
 * exec that failed, open it again and go on.  0, or -1 (failed). */
int cl_db_suspend(struct cl_db *db, const char *end) CL_HIDDEN;
int cl_db_resume(struct cl_db *db) CL_HIDDEN;
void cl_db_forget_after_fork(void) CL_HIDDEN;
/* A counter that moves while the writer works in SQLite. */
uint64_t cl_db_progress(void) CL_HIDDEN;

/* dbfd.c: the recording's descriptors, far above the program's.  Install on
 * the writer thread before it opens the recording (-1: not possible, the
 * files get SQLite's usual descriptors). */
int cl_dbfd_install(void) CL_HIDDEN;
/* fd moved above the program's range (close-on-exec), or -1. */
int cl_dbfd_move(int fd) CL_HIDDEN;
/* 1, with why, when the descriptor limit leaves the recording no room
 * above the program's descriptors (then nothing is recorded) */
int cl_dbfd_no_room(char *why, size_t whysz) CL_HIDDEN;
/* -1 with why when the program closed or replaced one of them. */
int cl_dbfd_check(char *why, size_t whysz) CL_HIDDEN;
/* Close those that are still the recording's; forget them all. */
void cl_dbfd_release(void) CL_HIDDEN;

#endif

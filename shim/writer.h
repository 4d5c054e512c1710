/* writer.h - the writer thread (writer.c): started with the first record,
 * it drains the rings into the recording until the process ends or execs. */
#ifndef CUDALENS_SHIM_WRITER_H
#define CUDALENS_SHIM_WRITER_H

#include "shim.h"

void cl_writer_ensure_started(void) CL_HIDDEN; /* lazily, on first record */
int cl_writer_running(void) CL_HIDDEN;
/* the writer's state belongs to this process (not a vfork or raw clone
 * child's copy) */
int cl_writer_owned_here(void) CL_HIDDEN;
void cl_writer_wake(void) CL_HIDDEN;
/* End the recording: the writer drains every ring and closes the database,
 * noting how the process ended (meta end) and, with clean, that everything
 * was written.  Waits only while the writer makes progress, and never joins
 * unless clean; async-signal-safe when clean == 0.  No writer starts after. */
void cl_writer_end(const char *end, int clean) CL_HIDDEN;
void cl_writer_stop(int clean) CL_HIDDEN; /* end "exit" or "signal" */
int cl_writer_is_self(void) CL_HIDDEN;
/* a writer of this very process (not of a parent, nor one a vfork child
 * shares) is running */
int cl_writer_recording_here(void) CL_HIDDEN;
/* Around an exec: the database is written out and closed (end "exec");
 * pass suspend's result to resume when the exec failed. */
int cl_writer_suspend(void) CL_HIDDEN;
void cl_writer_resume(int suspended_by_caller) CL_HIDDEN;
/* A forked child that has not made a CUDA call of its own: everything it
 * holds is its parent's.  adopt: it now records on its own. */
int cl_writer_inherited(void) CL_HIDDEN;
void cl_writer_adopt(void) CL_HIDDEN;
void cl_writer_atfork_prepare(void) CL_HIDDEN;
void cl_writer_atfork_parent(void) CL_HIDDEN;
void cl_writer_atfork_child(void) CL_HIDDEN;

#endif

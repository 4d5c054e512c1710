/* streams.h - the streams of a recording as instances: one per created
 * stream (streams table; a handle reused after destroy is a new instance),
 * one per default stream (legacy, per-thread) and device, and one per
 * handle seen in calls but never created in the recording; each with the
 * name the program gave it through NVTX, if any (names table). */
#ifndef CL_REPORT_STREAMS_H
#define CL_REPORT_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudalens/semantics.h"
#include "model/db.h"

struct callsites;

enum stream_kind {
  STREAM_LEGACY,      /* the legacy default stream (handle 0 / 1) */
  STREAM_PER_THREAD,  /* the per-thread default stream (handle 2) */
  STREAM_CREATED,     /* created during the recording */
  STREAM_UNKNOWN      /* used, but not created during the recording */
};

struct stream {
  enum stream_kind kind;
  int64_t handle;
  int64_t device;         /* -1 when unknown */
  int64_t flags;          /* -1 when unknown */
  int64_t priority;
  int64_t created_seq;    /* -1 for default / unknown streams */
  int64_t destroyed_seq;  /* -1 when never destroyed */
  char *name;             /* its NVTX name (the latest given), or NULL */
};

/* an NVTX name for a handle that no created instance held when it was
 * given (a default stream, or one created before recording): it goes to
 * the instances of that handle that lookups create */
struct stream_name {
  int64_t handle;         /* 0 stands for the legacy default stream */
  char *name;
};

struct streams {
  struct stream *v;
  size_t n, cap;
  struct stream_name *names;
  size_t nnames, capnames;
};

void streams_load(struct streams *s, struct cl_db *d);
void streams_free(struct streams *s);
/* The instance a call at SEQ means by stream HANDLE (has_handle false when
 * calls.stream is NULL: the legacy default stream, or the per-thread one
 * for a _ptds/_ptsz API).  DEVICE: calls.device or -1.  Returns an index
 * into s->v; new default/unknown instances are created as needed. */
size_t streams_lookup(struct streams *s, bool has_handle, int64_t handle,
                      int64_t device, int64_t seq, const char *api_name);
/* non-blocking: flags has cudaStreamNonBlocking (1) */
bool stream_blocking(const struct stream *st);
/* its class for the coverage rule (ops.def section 3b, cl_sync_covers):
 * legacy, per-thread, blocking, non-blocking, or unknown (not created in
 * the recording, or flags not recorded) */
enum cl_stream_class stream_class(const struct stream *st);
const char *stream_kind_name(enum stream_kind k);
/* The number a person calls stream I by: its place in creation order among
 * the streams the recording saw created (1, 2, ...), the same in every
 * finding and in the summary; 0 for default and unknown streams. */
size_t stream_ordinal(const struct streams *s, size_t i);
/* indices of s->v in report order: device, kind, creation, handle
 * (malloc'd array of s->n) */
size_t *streams_order(const struct streams *s);

/* What findings call stream instance I of S (malloc'd): "stream 2
 * (non-blocking, created at pipeline.cu:34)" for a stream the recording
 * saw created (numbered by stream_ordinal), "stream 0x... (created before
 * recording)" for an unknown one, "the legacy default stream (device 0)",
 * "the per-thread default stream".  A stream the program named through
 * NVTX is called by that name first: "stream \"prefetch\" (2,
 * non-blocking, created at pipeline.cu:34)", "stream \"io\" (0x...,
 * created before recording)", "the legacy default stream \"main\" (device
 * 0)". */
char *stream_title(struct cl_db *db, struct callsites *cs,
                   const struct streams *s, size_t i);

/* What reports call host thread TID (malloc'd): "thread 4242 \"loader\""
 * when the program named it through NVTX (the latest name), else "thread
 * 4242 (comm)" with its name in the threads table, else "thread 4242". */
char *thread_title(struct cl_db *db, int64_t tid);

#endif

/* timeline.h - what ran where and when, for the timeline outputs (perfetto,
 * html): one lane per stream that got work (by device, in the summary's
 * order) and one per host thread; on the stream lanes the kernels, copies
 * and memsets at their recorded GPU times, and the event records and
 * stream waits at the point of the stream they stand for; on the host
 * lanes every API call and the host accesses of host_accesses; and the
 * event edges, each from a record to the stream wait that waits for it.
 * Built once from the recording (timeline_build); the outputs only draw
 * it. */
#ifndef CL_REPORT_TIMELINE_H
#define CL_REPORT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/activity.h"
#include "model/db.h"

struct callsites;
struct summary;

struct tl_lane {
  bool host;          /* a host thread (else a stream) */
  int64_t device;     /* the stream's device (0 when unknown); -1 for host */
  int64_t tid;        /* host: the thread's id */
  size_t stream;      /* stream: index into the summary's streams */
  char *title;        /* "stream 1 (non-blocking, created at a.cu:9)",
                         "thread 4242 (main)" */
};

enum tl_kind {
  TL_KERNEL, TL_COPY, TL_MEMSET, /* stream work */
  TL_RECORD, TL_WAIT,            /* event record, stream wait (points) */
  TL_CALL, TL_SYNC,              /* an API call on a host thread */
  TL_ACCESS,                     /* a host access (host_accesses; a point) */
  TL_KIND_COUNT
};
extern const char *const tl_kind_names[TL_KIND_COUNT];

struct tl_op {
  int64_t seq;        /* calls.seq; host_accesses.seq for TL_ACCESS */
  enum tl_kind kind;
  size_t lane;
  int64_t start_ns, end_ns; /* from the timeline's origin */
  bool timed;         /* stream work: from its GPU activity records; else
                         the host time of its API call stands in */
  char *name;         /* "scale(float*, float const*, float, int)",
                         "cudaMemcpyAsync htod 4 MiB", "host read" */
};

/* an ordering the program made: event record -> stream wait */
struct tl_flow {
  size_t from, to;    /* indices into ops */
  uint64_t event;     /* the event handle */
};

struct timeline {
  int64_t origin_ns;  /* recording time of 0 (the earliest thing drawn) */
  int64_t end_ns;     /* the latest end, from the origin */
  struct tl_lane *lanes;
  size_t nlanes;
  struct tl_op *ops;  /* in no particular order */
  size_t nops;
  struct tl_flow *flows;
  size_t nflows;
};

/* from the calls of DB and their GPU activity (ACT), on the streams of
 * SUM (a stream it lacks is added to it); CS names the lanes */
void timeline_build(struct timeline *tl, struct cl_db *db,
                    const struct activity *act, struct summary *sum,
                    struct callsites *cs);
void timeline_free(struct timeline *tl);
/* the op a finding's row SEQ (struct finding's ops) means: the stream work
 * or record/wait of that call when there is one, else its host call or
 * host access; -1 when the timeline has none */
long timeline_find(const struct timeline *tl, int64_t seq);

#endif

/* hb_engine.h - the happens-before engine of the race analysis: vector
 * clocks for CUDA streams and host threads, event clocks, and a shadow of
 * memory that remembers, per address key, the last write and the reads
 * since, to find pairs of accesses on different streams that are not
 * ordered.  It knows nothing about the database: analyzer/checks/find_races.c
 * feeds it the recorded calls in seq order.
 *
 * Clocks.  Each stream is a slot of the vector clocks; a clock has one
 * entry per stream (it grows with streams, not with operations).  A stream
 * operation gets the next epoch of its stream; access A (stream s, epoch e)
 * happens before an operation on stream t when t's clock at that operation
 * has entry s >= e.  Host threads have clocks too (what the thread knows to
 * be finished); an operation issued by a thread starts after everything
 * its thread knows to be finished.
 *
 * Models.  Every clock exists in HB_MODELS versions, computed side by side:
 * model m leaves out the edges whose class bit is set in m.  Model 0 is
 * the full CUDA semantics; model HB_EDGE_LEGACY leaves out the legacy
 * default stream's implicit synchronization with blocking streams; model
 * HB_EDGE_UNPROMISED leaves out the orderings CUDA shows in practice but
 * does not promise (include/cudalens/ops.def: a blocking copy from pageable
 * memory finished on return, an async copy to pageable memory blocking,
 * cudaFree synchronizing); model 3 leaves out both.  A pair ordered in
 * model 0 but not in another is ordered only by an implicit or unpromised
 * synchronization (reported as a warning, never an error).
 *
 * Host threads.  Each thread has a clock (what it knows to be finished)
 * and, when it touches memory itself (the source of a blocking copy from
 * pageable memory, read before the call returns), a host pseudo-stream
 * whose operations are ordered with the thread's program order.  Threads
 * are ordered by the edges the caller feeds (thread creation and join);
 * a pair not ordered that way but ordered if the second thread had learned
 * everything some thread knew when the second access was issued (a host
 * handoff cudalens cannot see: mutex, condition variable, queue) is passed
 * to the race callback with its `handoff` mask set.
 *
 * Memory.  Accesses are grouped in buckets (the caller passes one key per
 * allocation) and keyed inside a bucket either by a point (a kernel
 * argument pointer: it conflicts with the same pointer and with ranges that
 * contain it, never with a neighbouring pointer, so tensors carved from one
 * segment by a caching allocator do not conflict) or by a range [lo, hi)
 * (copies and memsets: they conflict with overlapping ranges and the points
 * inside).  Per key the shadow keeps the last write and the reads since,
 * one per stream (bounded). */
#ifndef CL_REPORT_HB_ENGINE_H
#define CL_REPORT_HB_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HB_MODELS 4
#define HB_ALL_MODELS ((1u << HB_MODELS) - 1)

/* edge classes (bits); HB_EDGE_ALWAYS edges are in every model */
enum hb_edge {
  HB_EDGE_ALWAYS = 0,
  HB_EDGE_LEGACY = 1,   /* legacy default stream <-> blocking streams */
  HB_EDGE_UNPROMISED = 2 /* happens in practice, not promised by the docs */
};

/* stream flags */
#define HB_STREAM_LEGACY 1u   /* the legacy default stream of its device */
#define HB_STREAM_BLOCKING 2u /* synchronizes with the legacy default stream */
#define HB_STREAM_HOST 4u     /* a host thread's own accesses */

struct hb_engine;

/* one memory access by a stream operation */
struct hb_access {
  int64_t seq;      /* the call (for the report) */
  int64_t stack;    /* the call's stack id, -1 when none (for grouping) */
  uint32_t stream;  /* hb stream id */
  uint32_t epoch;   /* from hb_issue */
  uint64_t lo, hi;  /* a range [lo, hi), or a point lo (hi = lo) */
  uint8_t point;    /* a kernel-argument pointer */
  uint8_t write;    /* writes (or may write) */
  uint8_t definite; /* the read/write is known, not a guess */
  uint8_t untyped;  /* a kernel pointer whose parameter's type is unknown
                     * (no C++ signature): nothing says it is written */
  uint8_t uninit;   /* a kernel pointer in a by-value structure that was not
                     * fully initialized: it may be stale, unused */
  uint8_t atomic;   /* the write is an atomic read-modify-write (footprint) */
  uint8_t footprint; /* a kernel's access as its footprint says (caller's) */
  uint8_t indirect; /* ... through a pointer read from memory, placed by the
                     * allocations' order (caller's) */
  uint8_t op;       /* caller's tag (kind of operation) */
  uint8_t rule;     /* caller's tag (the copy rule, semantics.h) */
  int32_t param;    /* caller's tag (kernel parameter), -1 when none */
  int64_t kernel;   /* caller's tag (kernel name: strings.id), 0 when none */
  int32_t offset;   /* caller's tag (byte offset inside the parameter) */
  int64_t origin;   /* caller's tag (graph node: the call that added it), 0 */
  uint32_t gnode;   /* caller's tag (graph node: its index + 1), 0 */
  uint32_t base;    /* caller's tag (graph node: the launch's stream) */
};

/* called for a pair of conflicting accesses (at least one writes) on
 * different streams that is not ordered in every model: bit m of HBMASK is
 * set when PREV happens before CUR in model m; bit m of HANDOFF when it
 * would, had CUR's thread learned what some host thread knew when CUR was
 * issued */
typedef void (*hb_race_fn)(void *ud, const struct hb_access *prev,
                           const struct hb_access *cur, unsigned hbmask,
                           unsigned handoff);

struct hb_engine *hb_new(void);
void hb_free(struct hb_engine *e);

/* a new stream (HB_STREAM_* flags) of DEVICE (-1 unknown); returns its id */
uint32_t hb_new_stream(struct hb_engine *e, int64_t device, unsigned flags);
/* a new host thread; returns its id */
uint32_t hb_new_thread(struct hb_engine *e);
size_t hb_nstreams(const struct hb_engine *e);

/* THREAD touches host memory itself (now, before its call returns):
 * returns its host pseudo-stream (in *STREAM) and the access's epoch; later
 * work the thread issues is ordered after it */
uint32_t hb_host_issue(struct hb_engine *e, uint32_t thread, uint32_t *stream);

/* THREAD puts an operation into STREAM: the stream first waits for what
 * the thread knows to be finished and for the legacy-stream implicit
 * ordering; returns the operation's epoch */
uint32_t hb_issue(struct hb_engine *e, uint32_t thread, uint32_t stream);
/* synchronous peer copies (cudaMemcpyPeer) are serialized with all work
 * of the devices involved: STREAM waits for every stream of DEVICE
 * (before hb_issue), and later work on DEVICE waits for STREAM's work so
 * far (after hb_issue) */
void hb_stream_wait_device(struct hb_engine *e, uint32_t stream,
                           int64_t device);
void hb_device_barrier(struct hb_engine *e, int64_t device, uint32_t stream);
/* CUDA graph launches.  Each node of an executable graph runs on a lane, a
 * stream of the engine of its own (hb_new_stream, no flags).  A launch on
 * stream S: hb_stream_join(S, lane) for every lane (the launch is ordered
 * behind the previous launches of the executable graph), hb_issue on S
 * (the launch point), then for each node in an order of the edges
 * hb_lane_issue(lane, S, the lanes of its predecessors), and at the end
 * hb_stream_join(S, lane) for every lane: S's later work waits for every
 * node. */
uint32_t hb_lane_issue(struct hb_engine *e, uint32_t lane, uint32_t base,
                       const uint32_t *preds, size_t npreds);
/* DST's later work waits for SRC's work so far */
void hb_stream_join(struct hb_engine *e, uint32_t dst, uint32_t src);
/* the event EVENT (caller's key) now captures STREAM's work so far */
void hb_event_record(struct hb_engine *e, uint64_t event, uint32_t stream);
/* STREAM's later work waits for EVENT's latest record (none: no-op) */
void hb_stream_wait_event(struct hb_engine *e, uint32_t stream, uint64_t event);
/* EVENT is (re)created: not recorded */
void hb_event_reset(struct hb_engine *e, uint64_t event);

/* host synchronization: THREAD learns that the work covered is finished.
 * EDGE is the class of the edge.  Waiting for a legacy default stream
 * also waits (class HB_EDGE_LEGACY) for its device's blocking streams. */
void hb_host_wait_stream(struct hb_engine *e, uint32_t thread,
                         uint32_t stream, enum hb_edge edge);
void hb_host_wait_event(struct hb_engine *e, uint32_t thread, uint64_t event);
/* every stream of DEVICE (-1: of every device), an edge of class EDGE */
void hb_host_wait_device(struct hb_engine *e, uint32_t thread, int64_t device,
                         enum hb_edge edge);
/* THREAD learns what FROM knows */
void hb_thread_join(struct hb_engine *e, uint32_t thread, uint32_t from);

/* bit m: THREAD knows, in model m, that (STREAM, EPOCH) is done */
unsigned hb_thread_knows(const struct hb_engine *e, uint32_t thread,
                         uint32_t stream, uint32_t epoch);

/* does access (STREAM, EPOCH) happen before the current state of stream
 * CUR?  bit m for model m */
unsigned hb_ordered(const struct hb_engine *e, uint32_t stream,
                    uint32_t epoch, uint32_t cur);

/* record access A in BUCKET; FN is called for each racing earlier access */
void hb_access(struct hb_engine *e, uint64_t bucket, const struct hb_access *a,
               hb_race_fn fn, void *ud);
/* forget BUCKET (the allocation was freed) */
void hb_bucket_drop(struct hb_engine *e, uint64_t bucket);

#endif

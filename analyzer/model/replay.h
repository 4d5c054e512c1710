/* replay.h - the one reading of a recording's calls: a seq-ordered pass
 * that yields each call as a typed operation (its operation class, API,
 * thread, device, stream handle, stacks, and what the transfers, memory,
 * events, stream_waits, syncs and kernels tables say of it), with the
 * memory model advanced to the state just before the call.  The joins and
 * the choice of columns live here only (their numbering comes from
 * include/cudalens/tables.def); analyses read struct replay_op.
 *
 *   struct replay r;
 *   replay_begin(&r, db, act);
 *   while (replay_next(&r)) { const struct replay_op *o = &r.op; ... }
 *   replay_end(&r);
 *
 * Strings in the op (api, kmangled, sync_kind, dev_op) are the calls
 * log's: valid until the struct cl_db is closed. */
#ifndef CL_REPORT_REPLAY_H
#define CL_REPORT_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "model/activity.h"
#include "model/db.h"
#include "model/memmodel.h"

struct replay_arg;

/* The fields of a struct replay_op read from the recording, in the order
 * of the calls log (replay.c): X(KIND, name) with KIND the type, one of
 * I64 (int64_t), U64 (uint64_t), INT (int), BOOL (bool), STR (a string of
 * the log) and NAME (one the reader holds while the log is built: API and
 * kernel names, interned by address).  The log keeps a mask of the fields
 * that changed since the previous op as a varint, a bit a field in this
 * order: those that change on most calls (seq, times, stacks, correlation
 * ids, a launch's kernel) come first, so that their mask is 2 bytes, not 7
 * (the kernel's fields were last, bits 47-48). */
#define REPLAY_FIELDS(X)                                                       \
  X(I64, seq)                                                                  \
  X(INT, op)            /* enum cl_op; -1 when the API is not in the table */  \
  X(NAME, api)          /* the recorded API name, e.g. cudaMemcpyAsync_v3020 */\
  X(I64, tid)                                                                  \
  X(I64, start_ns)      /* host time of the call */                            \
  X(I64, end_ns)                                                               \
  X(I64, stream)        /* calls.stream, the handle as recorded */             \
  X(I64, stack)         /* -1: none */                                         \
  X(I64, pystack)       /* -1: none */                                         \
  X(I64, corr)          /* CUPTI correlation ids, -1: none */                  \
  X(I64, dcorr)                                                                \
  /* kernels (op == CL_OP_KERNEL), then the rest of calls */                   \
  X(I64, kname)         /* strings id, -1: none */                             \
  X(NAME, kmangled)                                                            \
  X(BOOL, has_stream)                                                          \
  X(I64, device)        /* -1: none recorded */                                \
  X(I64, result)        /* 0: the call succeeded */                            \
  /* transfers: copies and memsets */                                          \
  X(BOOL, transfer)                                                            \
  X(BOOL, is_memset)                                                           \
  X(BOOL, async)                                                               \
  X(INT, dir_recorded)  /* enum cl_dir from transfers.direction */             \
  X(U64, src)                                                                  \
  X(U64, dst)                                                                  \
  X(I64, bytes)         /* -1: none recorded */                                \
  X(I64, src_device)    /* -1: none */                                         \
  X(I64, dst_device)    /* -1: none */                                         \
  /* memory: allocations and releases */                                       \
  X(BOOL, mem)                                                                 \
  X(BOOL, mem_free)     /* memory.op: free (else alloc) */                     \
  X(INT, mem_kind)      /* enum cl_memkind, -1: none recorded */               \
  X(U64, mem_addr)                                                             \
  X(I64, mem_size)      /* -1: none recorded */                                \
  X(BOOL, mem_has_stream) /* stream-ordered (cudaMallocAsync, cudaFreeAsync) */\
  X(I64, mem_stream)                                                           \
  /* device operations (device_ops): peer access, device selection... */       \
  X(STR, dev_op)        /* NULL: none */                                       \
  X(I64, dev_op_device) /* -1: none */                                         \
  X(BOOL, has_peer)                                                            \
  X(I64, peer)                                                                 \
  /* events */                                                                 \
  X(BOOL, has_event)    /* events.handle: an event created by this call */     \
  X(U64, event)                                                                \
  X(BOOL, has_record)   /* event_records.event */                              \
  X(U64, record_event)                                                         \
  X(BOOL, has_wait)     /* stream_waits.event */                               \
  X(U64, wait_event)                                                           \
  /* synchronizations */                                                       \
  X(STR, sync_kind)     /* NULL: not a synchronization */                      \
  X(INT, sync_op)       /* its enum cl_op (cl_sync_kind_op), -1: none */       \
  X(BOOL, has_sync_event)                                                      \
  X(U64, sync_event)                                                           \
  X(BOOL, has_sync_stream)                                                     \
  X(I64, sync_stream)                                                          \
  X(BOOL, complete)     /* a query or sync that found the work done */

#define REPLAY_TYPE_I64 int64_t
#define REPLAY_TYPE_U64 uint64_t
#define REPLAY_TYPE_INT int
#define REPLAY_TYPE_BOOL bool
#define REPLAY_TYPE_STR const char *
#define REPLAY_TYPE_NAME const char *

struct replay_op {
#define REPLAY_MEMBER(kind, name) REPLAY_TYPE_##kind name;
  REPLAY_FIELDS(REPLAY_MEMBER)
#undef REPLAY_MEMBER
  const struct replay_arg *args; /* kernel_args of the call, by param, offset */
  size_t nargs;
};

/* one pointer-sized word of a kernel's arguments (kernel_args) */
struct replay_arg {
  int64_t param, offset;
  uint64_t value;
  bool uninit; /* its parameter was not fully initialized (uninit_params):
                * the word may be stale */
};

struct replay_log;

struct replay {
  struct replay_op op;
  /* set after replay_begin by a pass that does not read op.args: they are
   * then not decoded (op.nargs is 0) */
  bool no_args;
  struct memmodel mm;      /* advanced to op.seq - 1 by replay_next */
  const struct activity *act;
  struct cl_db *db;
  const struct replay_log *log; /* the recording's calls, read once */
  size_t pos;              /* of the next op in the log */
  void *state;             /* the decoder's (struct log_state) */
  struct replay_arg *args;
  size_t cap_args;
  size_t act_hint;         /* where the last activity lookup ended */
};

/* a pass over the calls of DB, their GPU activity from ACT */
void replay_begin(struct replay *r, struct cl_db *db,
                  const struct activity *act);
bool replay_next(struct replay *r);
void replay_end(struct replay *r);
/* the calls log kept with a struct cl_db (db_close frees it) */
void replay_log_free(struct replay_log *l);

/* The reading of the calls log, done by the first replay_begin unless
 * done before (reading.c spreads it over two threads): the calls with the
 * tables that describe them but kernel_args (replay_read_calls), and the
 * kernel_args (replay_args_read, on any connection to the recording, and
 * replay_set_args; NULL: read them now, on DB). */
struct replay_args;
void replay_read_calls(struct cl_db *db);
/* the same, with the kernels table's rows read by another thread on another
 * connection to the recording (kernel_feed_read, while this one reads the
 * calls; where it fails, the rest is read on DB) */
struct kernel_feed;
struct kernel_feed *kernel_feed_new(void);
void kernel_feed_read(struct kernel_feed *f, struct cl_db *db);
void kernel_feed_free(struct kernel_feed *f);
void replay_read_calls_fed(struct cl_db *db, struct kernel_feed *feed);
struct replay_args *replay_args_read(struct cl_db *db);
void replay_set_args(struct cl_db *db, struct replay_args *args);
void replay_args_free(struct replay_args *a);
/* does some kernel argument word lie in a structure that was not fully
 * initialized (uninit_params)? */
bool replay_has_uninit(struct cl_db *db);

/* What SQL aggregates over the calls table say, gathered as the calls log
 * is read (so that the analyses scan the table once). */
struct calls_facts {
  int64_t calls;           /* count(*) */
  int64_t threads;         /* count(DISTINCT tid) */
  bool has_start, has_end; /* min(start_ns), max(end_ns) are not NULL */
  int64_t min_start, max_end;
  int64_t first_kernel;    /* min(seq) of the successful kernel and graph
                            * launches, INT64_MAX: none */
  int64_t *task_devices;   /* DISTINCT device of the successful calls of a
                            * stream task (cl_op_is_stream_task) */
  size_t ntask_devices;
};
/* the facts of DB's calls (read now if not yet), or NULL when a value they
 * depend on is not an integer or NULL (a hand-made recording, whose SQL
 * comparisons only SQLite gives: ask it) */
const struct calls_facts *replay_calls_facts(struct cl_db *db);

/* the GPU activity of the current call (n == 0: none recorded) */
void replay_activity(struct replay *r, struct call_act *ca);
/* the current transfer's direction: the recorded one, else what the
 * activity record CA (replay_activity) and the memory model tell */
int replay_copy_direction(const struct replay *r, const struct call_act *ca);
/* the current copy's or memset's rule (ops.def section 2): from its mode,
 * its direction (replay_copy_direction; a memset's: unknown) and the
 * memory kind of its host side (a memset's target; device memory when it
 * has none) */
const struct cl_copy_rule *replay_copy_rule(const struct replay *r,
                                            const struct call_act *ca);

/* An API name without CUPTI's version suffix: "cudaMemcpyAsync_v3020" ->
 * "cudaMemcpyAsync" (into BUF). */
const char *api_display(char *buf, size_t len, const char *name);

#endif

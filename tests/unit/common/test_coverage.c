/* test_coverage.c - the one coverage rule (ops.def section 3b,
 * cl_sync_covers): every row of the table is reached by some input and
 * answers for it; each kind of synchronization ends with a catch-all that
 * covers nothing; the answers for the cases the CUDA documentation names
 * (written here from the documentation, not from the table) are the
 * table's; the stream-task column (section 1) and what the host knows after
 * a copy or memset (section 2) likewise. */
#include "cudalens/semantics.h"
#include "../unit.h"

/* ---- the rows, as the table declares them -------------------------------- */

static const struct {
  const char *name;
  enum cl_sync_kind kind;
  int on, work; /* work -1: SAME */
  enum cl_cover cover;
} rows[] = {
#define SC_SAME (-1)
#define SC_ANY CL_SC_ANY
#define SC_LEGACY CL_SC_LEGACY
#define SC_PER_THREAD CL_SC_PER_THREAD
#define SC_BLOCKING CL_SC_BLOCKING
#define SC_NONBLOCKING CL_SC_NONBLOCKING
#define SC_UNKNOWN CL_SC_UNKNOWN
#define CL_SYNC_COVER(id, sync, on, work, cover, doc)                          \
  {#id, CL_SYNC_##sync, SC_##on, SC_##work, CL_COVER_##cover},
#include "cudalens/ops.def"
};
#define NROWS (sizeof rows / sizeof rows[0])

static const enum cl_stream_class classes[] = {
    CL_SC_LEGACY, CL_SC_PER_THREAD, CL_SC_BLOCKING, CL_SC_NONBLOCKING,
    CL_SC_UNKNOWN};
#define NCLASSES (sizeof classes / sizeof classes[0])
static const enum cl_sync_kind kinds[] = {CL_SYNC_DEVICE, CL_SYNC_STREAM,
                                          CL_SYNC_EVENT, CL_SYNC_ISSUE};

/* every row is the answer for at least one input, and says what the rule
 * answers; every input gets a row of its own kind */
static void check_rows(void)
{
  CHECK(NROWS == CL_COVER_RULE_COUNT);
  int reached[CL_COVER_RULE_COUNT] = {0};
  for (size_t k = 0; k < 4; k++)
    for (size_t on = 0; on < NCLASSES; on++)
      for (size_t w = 0; w < NCLASSES; w++)
        for (int same = 0; same < 2; same++)
          for (int dev = 0; dev < 2; dev++) {
            struct cl_sync s = {kinds[k], classes[on]};
            struct cl_prior p = {classes[w], same, dev};
            const struct cl_cover_rule *r = cl_sync_rule(&s, &p);
            CHECK(r && (unsigned)r->id < CL_COVER_RULE_COUNT);
            if (!r || (unsigned)r->id >= CL_COVER_RULE_COUNT)
              continue;
            reached[r->id]++;
            CHECK(rows[r->id].kind == kinds[k]);
            CHECK_STR(r->name, rows[r->id].name);
            CHECK(r->cover == rows[r->id].cover);
            CHECK(cl_sync_covers(&s, &p) == r->cover);
            CHECK(r->doc && r->doc[0]);
            /* work of another device: only the same stream */
            if (!dev && !(same && kinds[k] != CL_SYNC_DEVICE))
              CHECK(r->cover == CL_COVER_NONE);
          }
  for (size_t i = 0; i < NROWS; i++) {
    if (!reached[i])
      fprintf(stderr, "row %s is never the answer\n", rows[i].name);
    CHECK(reached[i] > 0);
  }
  /* each kind's last row covers nothing, for any input */
  for (size_t k = 0; k < 4; k++) {
    int last = -1;
    for (size_t i = 0; i < NROWS; i++)
      if (rows[i].kind == kinds[k])
        last = (int)i;
    CHECK(last >= 0);
    if (last < 0)
      continue;
    CHECK(rows[last].on == CL_SC_ANY && rows[last].work == CL_SC_ANY);
    CHECK(rows[last].cover == CL_COVER_NONE);
  }
}

/* ---- the documented cases -------------------------------------------------
 * Each: a synchronization, the earlier work, and what CUDA's documentation
 * says ([SYNC], [STREAM], [API] as in ops.def). */
enum { SAME = 1, OTHER = 0, DEV = 1, XDEV = 0 };
static const struct {
  const char *what;
  enum cl_sync_kind kind;
  enum cl_stream_class on, work;
  int same_stream, same_device;
  enum cl_cover want;
} cases[] = {
    /* cudaDeviceSynchronize: all preceding tasks of the device */
    {"device sync, kernel on a non-blocking stream", CL_SYNC_DEVICE,
     CL_SC_LEGACY, CL_SC_NONBLOCKING, OTHER, DEV, CL_COVER_DIRECT},
    {"device sync, legacy stream work", CL_SYNC_DEVICE, CL_SC_LEGACY,
     CL_SC_LEGACY, OTHER, DEV, CL_COVER_DIRECT},
    {"device sync, another device's work", CL_SYNC_DEVICE, CL_SC_LEGACY,
     CL_SC_BLOCKING, OTHER, XDEV, CL_COVER_NONE},
    /* cudaStreamSynchronize: its stream's operations */
    {"stream sync of the same blocking stream", CL_SYNC_STREAM,
     CL_SC_BLOCKING, CL_SC_BLOCKING, SAME, DEV, CL_COVER_DIRECT},
    {"stream sync of the same non-blocking stream", CL_SYNC_STREAM,
     CL_SC_NONBLOCKING, CL_SC_NONBLOCKING, SAME, DEV, CL_COVER_DIRECT},
    {"stream sync of the per-thread stream, its own work", CL_SYNC_STREAM,
     CL_SC_PER_THREAD, CL_SC_PER_THREAD, SAME, DEV, CL_COVER_DIRECT},
    {"stream sync of one blocking stream, another blocking stream",
     CL_SYNC_STREAM, CL_SC_BLOCKING, CL_SC_BLOCKING, OTHER, DEV,
     CL_COVER_NONE},
    {"stream sync of a blocking stream, earlier legacy work", CL_SYNC_STREAM,
     CL_SC_BLOCKING, CL_SC_LEGACY, OTHER, DEV, CL_COVER_NONE},
    {"stream sync of the per-thread stream, earlier legacy work",
     CL_SYNC_STREAM, CL_SC_PER_THREAD, CL_SC_LEGACY, OTHER, DEV,
     CL_COVER_NONE},
    /* the legacy default stream synchronizes with blocking streams */
    {"legacy sync, blocking stream", CL_SYNC_STREAM, CL_SC_LEGACY,
     CL_SC_BLOCKING, OTHER, DEV, CL_COVER_LEGACY},
    {"legacy sync, per-thread stream", CL_SYNC_STREAM, CL_SC_LEGACY,
     CL_SC_PER_THREAD, OTHER, DEV, CL_COVER_LEGACY},
    {"legacy sync, stream of unknown flags (taken as blocking)",
     CL_SYNC_STREAM, CL_SC_LEGACY, CL_SC_UNKNOWN, OTHER, DEV, CL_COVER_LEGACY},
    {"legacy sync, non-blocking stream", CL_SYNC_STREAM, CL_SC_LEGACY,
     CL_SC_NONBLOCKING, OTHER, DEV, CL_COVER_NONE},
    {"legacy sync, blocking stream of another device", CL_SYNC_STREAM,
     CL_SC_LEGACY, CL_SC_BLOCKING, OTHER, XDEV, CL_COVER_NONE},
    {"legacy sync, its own work", CL_SYNC_STREAM, CL_SC_LEGACY, CL_SC_LEGACY,
     SAME, DEV, CL_COVER_DIRECT},
    /* cudaEventSynchronize: what the record captured */
    {"event on a blocking stream, its stream", CL_SYNC_EVENT, CL_SC_BLOCKING,
     CL_SC_BLOCKING, SAME, DEV, CL_COVER_DIRECT},
    {"event on a blocking stream, another blocking stream", CL_SYNC_EVENT,
     CL_SC_BLOCKING, CL_SC_BLOCKING, OTHER, DEV, CL_COVER_NONE},
    {"event on the legacy stream, a blocking stream", CL_SYNC_EVENT,
     CL_SC_LEGACY, CL_SC_BLOCKING, OTHER, DEV, CL_COVER_LEGACY},
    {"event on the legacy stream, a non-blocking stream", CL_SYNC_EVENT,
     CL_SC_LEGACY, CL_SC_NONBLOCKING, OTHER, DEV, CL_COVER_NONE},
    {"event on a non-blocking stream, the legacy stream", CL_SYNC_EVENT,
     CL_SC_NONBLOCKING, CL_SC_LEGACY, OTHER, DEV, CL_COVER_NONE},
    /* what an operation waits for when it is issued */
    {"issue order in one stream", CL_SYNC_ISSUE, CL_SC_NONBLOCKING,
     CL_SC_NONBLOCKING, SAME, DEV, CL_COVER_DIRECT},
    {"legacy work after blocking stream work (k_2 waits on k_1)",
     CL_SYNC_ISSUE, CL_SC_LEGACY, CL_SC_BLOCKING, OTHER, DEV, CL_COVER_LEGACY},
    {"blocking stream work after legacy work (k_3 waits on k_2)",
     CL_SYNC_ISSUE, CL_SC_BLOCKING, CL_SC_LEGACY, OTHER, DEV, CL_COVER_LEGACY},
    {"per-thread stream work after legacy work", CL_SYNC_ISSUE,
     CL_SC_PER_THREAD, CL_SC_LEGACY, OTHER, DEV, CL_COVER_LEGACY},
    {"legacy work after per-thread stream work", CL_SYNC_ISSUE, CL_SC_LEGACY,
     CL_SC_PER_THREAD, OTHER, DEV, CL_COVER_LEGACY},
    {"non-blocking stream work after legacy work", CL_SYNC_ISSUE,
     CL_SC_NONBLOCKING, CL_SC_LEGACY, OTHER, DEV, CL_COVER_NONE},
    {"legacy work after non-blocking stream work", CL_SYNC_ISSUE,
     CL_SC_LEGACY, CL_SC_NONBLOCKING, OTHER, DEV, CL_COVER_NONE},
    {"two blocking streams", CL_SYNC_ISSUE, CL_SC_BLOCKING, CL_SC_BLOCKING,
     OTHER, DEV, CL_COVER_NONE},
    {"per-thread stream and a blocking stream", CL_SYNC_ISSUE,
     CL_SC_PER_THREAD, CL_SC_BLOCKING, OTHER, DEV, CL_COVER_NONE},
    {"legacy work after another device's blocking stream", CL_SYNC_ISSUE,
     CL_SC_LEGACY, CL_SC_BLOCKING, OTHER, XDEV, CL_COVER_NONE},
};

static void check_cases(void)
{
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct cl_sync s = {cases[i].kind, cases[i].on};
    struct cl_prior p = {cases[i].work, cases[i].same_stream,
                         cases[i].same_device};
    enum cl_cover got = cl_sync_covers(&s, &p);
    if (got != cases[i].want)
      fprintf(stderr, "%s: cover %d (row %s), want %d\n", cases[i].what,
              (int)got, cl_sync_rule(&s, &p)->name, (int)cases[i].want);
    CHECK(got == cases[i].want);
  }
}

/* ---- section 1: stream tasks; what the host knows after a call ----------- */

static void check_ops(void)
{
  /* work that takes time on its stream ([API] of each: "asynchronous with
   * respect to the host", enqueued in stream order) */
  static const enum cl_op tasks[] = {CL_OP_KERNEL, CL_OP_COPY, CL_OP_MEMSET,
                                     CL_OP_HOST_FUNC, CL_OP_GRAPH_LAUNCH,
                                     CL_OP_PREFETCH};
  int ntask = 0;
  for (int op = 0; op < CL_OP_COUNT; op++) {
    bool want = false;
    for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++)
      want |= tasks[i] == (enum cl_op)op;
    ntask += want;
    CHECK(cl_op_is_stream_task((enum cl_op)op) == want);
    /* a task is stream work, whatever the call names */
    if (want)
      CHECK(cl_op_is_stream_work((enum cl_op)op, false));
  }
  CHECK(ntask == 6);
  /* markers are stream work, not tasks; stream-ordered allocation is stream
   * work only when the call names a stream */
  CHECK(cl_op_is_stream_work(CL_OP_EVENT_RECORD, false));
  CHECK(cl_op_is_stream_work(CL_OP_STREAM_WAIT_EVENT, false));
  CHECK(!cl_op_is_stream_work(CL_OP_ALLOC, false));
  CHECK(cl_op_is_stream_work(CL_OP_ALLOC, true));
  CHECK(!cl_op_is_stream_work(CL_OP_SYNC_DEVICE, false));

  /* synchronizations: what the host knows */
  CHECK(cl_host_after(CL_OP_SYNC_DEVICE, NULL) == CL_HOST_DEVICE);
  CHECK(cl_host_after(CL_OP_SYNC_STREAM, NULL) == CL_HOST_STREAM);
  CHECK(cl_host_after(CL_OP_SYNC_EVENT, NULL) == CL_HOST_EVENT);
  CHECK(cl_host_after(CL_OP_KERNEL, NULL) == CL_HOST_NONE);
  /* [SYNC] cudaMemcpy device to host: returns once the copy completed */
  CHECK(cl_host_after(CL_OP_COPY,
                      cl_copy_rule(false, false, CL_DIR_DTOH,
                                   CL_MEMKIND_PAGEABLE)) == CL_HOST_STREAM);
  /* [SYNC] device to device: no host-side synchronization */
  CHECK(cl_host_after(CL_OP_COPY,
                      cl_copy_rule(false, false, CL_DIR_DTOD,
                                   CL_MEMKIND_DEVICE)) == CL_HOST_NONE);
  /* [API] cudaMemcpyPeer: asynchronous with respect to the host */
  CHECK(cl_host_after(CL_OP_COPY,
                      cl_copy_rule(false, false, CL_DIR_PEER,
                                   CL_MEMKIND_DEVICE)) == CL_HOST_NONE);
  /* [SYNC] cudaMemcpyAsync to pinned memory: asynchronous */
  CHECK(cl_host_after(CL_OP_COPY,
                      cl_copy_rule(false, true, CL_DIR_DTOH,
                                   CL_MEMKIND_PINNED)) == CL_HOST_NONE);
  /* [SYNC] cudaMemset on pinned memory: fully synchronous; on device
   * memory: asynchronous */
  CHECK(cl_host_after(CL_OP_MEMSET,
                      cl_copy_rule(true, false, CL_DIR_UNKNOWN,
                                   CL_MEMKIND_PINNED)) == CL_HOST_STREAM);
  CHECK(cl_host_after(CL_OP_MEMSET,
                      cl_copy_rule(true, false, CL_DIR_UNKNOWN,
                                   CL_MEMKIND_DEVICE)) == CL_HOST_NONE);

  enum cl_sync_kind k;
  CHECK(cl_sync_kind_of(CL_HOST_STREAM, &k) && k == CL_SYNC_STREAM);
  CHECK(cl_sync_kind_of(CL_HOST_EVENT, &k) && k == CL_SYNC_EVENT);
  CHECK(cl_sync_kind_of(CL_HOST_DEVICE, &k) && k == CL_SYNC_DEVICE);
  CHECK(!cl_sync_kind_of(CL_HOST_NONE, &k));
  CHECK(!cl_sync_kind_of(CL_HOST_RULE, &k));
}

int main(void)
{
  check_rows();
  check_cases();
  check_ops();
  UNIT_DONE();
}

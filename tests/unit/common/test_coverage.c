/* test_coverage.c - the one coverage rule (ops.def section 3b,
 * cl_sync_covers): every row of the table is reached by some input and
 * answers for it; each kind of synchronization ends with a catch-all that
 * covers nothing; the answers for the cases the CUDA documentation names
 * (written here from the documentation, not from the table) are the
 * table's, and each stream ordering of section 3 has such cases (the other
 * orderings of section 3 are named with the place that applies them); the
 * stream-task column (section 1) and what the host knows after a copy or
 * memset (section 2) likewise. */
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
  const char *rule; /* the ordering of section 3 it checks, or NULL */
} cases[] = {
    /* cudaDeviceSynchronize: all preceding tasks of the device */
    {"device sync, kernel on a non-blocking stream", CL_SYNC_DEVICE,
     CL_SC_LEGACY, CL_SC_NONBLOCKING, OTHER, DEV, CL_COVER_DIRECT, NULL},
    {"device sync, legacy stream work", CL_SYNC_DEVICE, CL_SC_LEGACY,
     CL_SC_LEGACY, OTHER, DEV, CL_COVER_DIRECT, NULL},
    {"device sync, another device's work", CL_SYNC_DEVICE, CL_SC_LEGACY,
     CL_SC_BLOCKING, OTHER, XDEV, CL_COVER_NONE, NULL},
    /* cudaStreamSynchronize: its stream's operations */
    {"stream sync of the same blocking stream", CL_SYNC_STREAM,
     CL_SC_BLOCKING, CL_SC_BLOCKING, SAME, DEV, CL_COVER_DIRECT, NULL},
    {"stream sync of the same non-blocking stream", CL_SYNC_STREAM,
     CL_SC_NONBLOCKING, CL_SC_NONBLOCKING, SAME, DEV, CL_COVER_DIRECT, NULL},
    {"stream sync of the per-thread stream, its own work", CL_SYNC_STREAM,
     CL_SC_PER_THREAD, CL_SC_PER_THREAD, SAME, DEV, CL_COVER_DIRECT, NULL},
    {"stream sync of one blocking stream, another blocking stream",
     CL_SYNC_STREAM, CL_SC_BLOCKING, CL_SC_BLOCKING, OTHER, DEV,
     CL_COVER_NONE, NULL},
    {"stream sync of a blocking stream, earlier legacy work", CL_SYNC_STREAM,
     CL_SC_BLOCKING, CL_SC_LEGACY, OTHER, DEV, CL_COVER_NONE, NULL},
    {"stream sync of the per-thread stream, earlier legacy work",
     CL_SYNC_STREAM, CL_SC_PER_THREAD, CL_SC_LEGACY, OTHER, DEV,
     CL_COVER_NONE, NULL},
    /* the legacy default stream synchronizes with blocking streams */
    {"legacy sync, blocking stream", CL_SYNC_STREAM, CL_SC_LEGACY,
     CL_SC_BLOCKING, OTHER, DEV, CL_COVER_LEGACY,
     "LEGACY_STREAM"},
    {"legacy sync, per-thread stream", CL_SYNC_STREAM, CL_SC_LEGACY,
     CL_SC_PER_THREAD, OTHER, DEV, CL_COVER_LEGACY,
     "PER_THREAD_STREAM"},
    {"legacy sync, stream of unknown flags (taken as blocking)",
     CL_SYNC_STREAM, CL_SC_LEGACY, CL_SC_UNKNOWN, OTHER, DEV, CL_COVER_LEGACY,
     NULL},
    {"legacy sync, non-blocking stream", CL_SYNC_STREAM, CL_SC_LEGACY,
     CL_SC_NONBLOCKING, OTHER, DEV, CL_COVER_NONE,
     "NONBLOCKING_STREAM"},
    {"legacy sync, blocking stream of another device", CL_SYNC_STREAM,
     CL_SC_LEGACY, CL_SC_BLOCKING, OTHER, XDEV, CL_COVER_NONE, NULL},
    {"legacy sync, its own work", CL_SYNC_STREAM, CL_SC_LEGACY, CL_SC_LEGACY,
     SAME, DEV, CL_COVER_DIRECT, NULL},
    /* cudaEventSynchronize: what the record captured */
    {"event on a blocking stream, its stream", CL_SYNC_EVENT, CL_SC_BLOCKING,
     CL_SC_BLOCKING, SAME, DEV, CL_COVER_DIRECT, NULL},
    {"event on a blocking stream, another blocking stream", CL_SYNC_EVENT,
     CL_SC_BLOCKING, CL_SC_BLOCKING, OTHER, DEV, CL_COVER_NONE, NULL},
    {"event on the legacy stream, a blocking stream", CL_SYNC_EVENT,
     CL_SC_LEGACY, CL_SC_BLOCKING, OTHER, DEV, CL_COVER_LEGACY,
     "LEGACY_STREAM"},
    {"event on the legacy stream, a non-blocking stream", CL_SYNC_EVENT,
     CL_SC_LEGACY, CL_SC_NONBLOCKING, OTHER, DEV, CL_COVER_NONE,
     "NONBLOCKING_STREAM"},
    {"event on a non-blocking stream, the legacy stream", CL_SYNC_EVENT,
     CL_SC_NONBLOCKING, CL_SC_LEGACY, OTHER, DEV, CL_COVER_NONE,
     "NONBLOCKING_STREAM"},
    /* what an operation waits for when it is issued */
    {"issue order in one stream", CL_SYNC_ISSUE, CL_SC_NONBLOCKING,
     CL_SC_NONBLOCKING, SAME, DEV, CL_COVER_DIRECT,
     "STREAM_ORDER"},
    {"legacy work after blocking stream work (k_2 waits on k_1)",
     CL_SYNC_ISSUE, CL_SC_LEGACY, CL_SC_BLOCKING, OTHER, DEV, CL_COVER_LEGACY,
     "LEGACY_STREAM"},
    {"blocking stream work after legacy work (k_3 waits on k_2)",
     CL_SYNC_ISSUE, CL_SC_BLOCKING, CL_SC_LEGACY, OTHER, DEV, CL_COVER_LEGACY,
     "LEGACY_STREAM"},
    {"per-thread stream work after legacy work", CL_SYNC_ISSUE,
     CL_SC_PER_THREAD, CL_SC_LEGACY, OTHER, DEV, CL_COVER_LEGACY,
     "PER_THREAD_STREAM"},
    {"legacy work after per-thread stream work", CL_SYNC_ISSUE, CL_SC_LEGACY,
     CL_SC_PER_THREAD, OTHER, DEV, CL_COVER_LEGACY,
     "PER_THREAD_STREAM"},
    {"non-blocking stream work after legacy work", CL_SYNC_ISSUE,
     CL_SC_NONBLOCKING, CL_SC_LEGACY, OTHER, DEV, CL_COVER_NONE,
     "NONBLOCKING_STREAM"},
    {"legacy work after non-blocking stream work", CL_SYNC_ISSUE,
     CL_SC_LEGACY, CL_SC_NONBLOCKING, OTHER, DEV, CL_COVER_NONE,
     "NONBLOCKING_STREAM"},
    {"two blocking streams", CL_SYNC_ISSUE, CL_SC_BLOCKING, CL_SC_BLOCKING,
     OTHER, DEV, CL_COVER_NONE, NULL},
    {"per-thread stream and a blocking stream", CL_SYNC_ISSUE,
     CL_SC_PER_THREAD, CL_SC_BLOCKING, OTHER, DEV, CL_COVER_NONE,
     "PER_THREAD_STREAM"},
    {"legacy work after another device's blocking stream", CL_SYNC_ISSUE,
     CL_SC_LEGACY, CL_SC_BLOCKING, OTHER, XDEV, CL_COVER_NONE, NULL},
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

/* ---- section 3: the orderings, each checked or applied elsewhere ---------
 * Every stream ordering of section 3 is what section 3b's rows implement:
 * documented cases above quote it (cases[].rule).  The others are applied
 * by the race analysis itself, named here with the place; a new row of
 * section 3 must be one or the other. */
static const struct {
  const char *id;
  enum cl_edge edge;
  const char *doc;
} order_rules[] = {
#define CL_ORDER_RULE(id, edge, doc) {#id, CL_EDGE_##edge, doc},
#include "cudalens/ops.def"
};
static const char *const applied_elsewhere[][2] = {
    {"GRAPH_EDGES", "find_races.c: a graph's nodes, ordered by its edges"},
    {"GRAPH_COMPLETION", "find_races.c: later work waits for every node"},
    {"GRAPH_EXEC_ORDER", "find_races.c: launches of one executable graph"},
    {"THREAD_CREATE_JOIN", "find_races.c: thread_edges (schema 2)"},
    {"HOST_HANDOFF", "find_races.c: thread-handoff-race, a warning"},
};
#define NORDER (sizeof order_rules / sizeof order_rules[0])
#define NELSEWHERE (sizeof applied_elsewhere / sizeof applied_elsewhere[0])

static void check_order_rules(void)
{
  /* every case names a row */
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (!cases[i].rule)
      continue;
    size_t r = 0;
    while (r < NORDER && strcmp(order_rules[r].id, cases[i].rule))
      r++;
    if (r == NORDER)
      fprintf(stderr, "%s: no rule %s in section 3\n", cases[i].what,
              cases[i].rule);
    CHECK(r < NORDER);
  }
  for (size_t r = 0; r < NORDER; r++) {
    size_t checked = 0, elsewhere = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      checked += cases[i].rule && !strcmp(cases[i].rule, order_rules[r].id);
    for (size_t e = 0; e < NELSEWHERE; e++)
      elsewhere += !strcmp(applied_elsewhere[e][0], order_rules[r].id);
    /* checked through section 3b, or applied by the analysis: not both */
    CHECK((checked > 0) != (elsewhere > 0),
          "section 3 rule %s (\"%s\"): %zu cases, %zu places",
          order_rules[r].id, order_rules[r].doc, checked, elsewhere);
    /* section 3b's covers are promised orderings: an UNPROMISED one is
     * applied elsewhere, as a warning */
    if (checked)
      CHECK(order_rules[r].edge == CL_EDGE_DOC);
    CHECK(order_rules[r].doc && order_rules[r].doc[0]);
  }
  for (size_t e = 0; e < NELSEWHERE; e++) {
    size_t r = 0;
    while (r < NORDER && strcmp(order_rules[r].id, applied_elsewhere[e][0]))
      r++;
    CHECK(r < NORDER, "%s is no rule of section 3", applied_elsewhere[e][0]);
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
  check_order_rules();
  check_ops();
  UNIT_DONE();
}

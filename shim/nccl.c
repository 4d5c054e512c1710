/* nccl.c - NCCL calls as records.  The functions of include/cudalens/nccl.def
 * get a wrapper here; gotpatch.c points the GOT entries of the program's
 * objects that import them at these wrappers once NCCL is loaded and the
 * shim records (nothing is exported: a process without NCCL sees no NCCL
 * symbol, and dlsym(RTLD_DEFAULT, "ncclAllReduce") finds what it finds
 * without the shim).  Each wrapper calls the real function and returns its
 * result untouched; around it, it records:
 *   - a collective or point-to-point call: one call record (op collective)
 *     with the communicator, buffers, count, datatype, the memory this rank
 *     reads and writes (nccl.def's rule), and the call site (native and
 *     Python stacks).  Between ncclGroupStart and ncclGroupEnd the records
 *     wait and are written at the outermost ncclGroupEnd, which is when
 *     NCCL issues the work ("Nothing will be started on the CUDA stream
 *     until ncclGroupEnd"), in call order;
 *   - a communicator created: rank, size, device, and an id that every rank
 *     of one communicator computes alike (a hash of its ncclUniqueId; for
 *     ncclCommSplit, of the parent's id, the split's ordinal on the parent
 *     and the color); destroyed: its handle.
 * NCCL's ABI (nccl.h, stable since NCCL 2.0): results and enums are ints,
 * communicators pointers, ncclUniqueId 128 bytes passed by value. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudalens/fnv.h"
#include "nccl.h"
#include "pyframes.h"
#include "ring.h"
#include "shim.h"
#include "stack.h"
#include "threads.h"

typedef int ncclResult_t;
typedef void *ncclComm_t;
typedef void *cudaStream_t;
typedef struct { char internal[128]; } ncclUniqueId;
#define NCCL_SUCCESS 0
#define NCCL_INTERNAL_ERROR 3
#define NCCL_IN_PROGRESS CL_NCCL_IN_PROGRESS

static _Atomic int enabled;
void cl_nccl_enable(void) { atomic_store(&enabled, 1); }
int cl_nccl_enabled(void) { return atomic_load(&enabled); }

/* ---- the real functions ------------------------------------------------------ */
#define CL_NCCL_COLL(name, ...) static void *_Atomic real_##name;
#define CL_NCCL_COMM(name, ...) static void *_Atomic real_##name;
#define CL_NCCL_GROUP(name, ...) static void *_Atomic real_##name;
#include "cudalens/nccl.def"
/* asked of NCCL itself, not interposed */
static void *_Atomic real_ncclCommCuDevice, *_Atomic real_ncclCommUserRank,
    *_Atomic real_ncclCommCount;

#define REAL(name, type) ((type)atomic_load_explicit(&real_##name, memory_order_acquire))

/* NCCL at work on this thread: how many of its calls are under way here
 * (each wrapper's real call is made INSIDE), or, for a thread NCCL created
 * inside one of them (its proxy, a nonblocking group's launcher), always.
 * NCCL launches its own kernels from there (capture.c: their arguments are
 * its internal state, which the collectives' records model). */
static __thread int nccl_inside;
#define INSIDE(call)                                                           \
  ({                                                                           \
    nccl_inside++;                                                             \
    ncclResult_t inside_rc_ = call;                                            \
    nccl_inside--;                                                             \
    inside_rc_;                                                                \
  })
int cl_nccl_inside(void) { return nccl_inside > 0; }
void cl_nccl_adopt(void) { nccl_inside = 1; }

/* ---- element sizes (ncclDataType_t: ncclInt8 ... ncclFloat8e5m2) ----------- */
static uint64_t type_size(int t)
{
  static const uint8_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return t >= 0 && (unsigned)t < sizeof sizes ? sizes[t] : 0;
}

/* ---- the memory rule of nccl.def ----------------------------------------------- */
enum { SPAN_NONE, SPAN_COUNT, SPAN_RANKS };
enum { WHO_ALL, WHO_ROOT, WHO_NONROOT };
struct span { uint8_t mult, who; };
struct coll_rule { struct span send, recv; };
#define SPAN(mult, who) {SPAN_##mult, WHO_##who}
enum {
#define CL_NCCL_COLL(name, ...) NROW_##name,
#define CL_NCCL_COMM(name, ...) NROW_##name,
#include "cudalens/nccl.def"
  NROWS
};
static const struct coll_rule rules[] = {
#define CL_NCCL_COLL(name, kind, send, recv, doc) [NROW_##name] = {send, recv},
#include "cudalens/nccl.def"
};

/* the bytes of span S of a call (0: it does not touch the buffer) */
static uint64_t span_bytes(struct span s, const struct cl_coll *c)
{
  if (s.mult == SPAN_NONE || c->rank < 0 ||
      (s.who == WHO_ROOT && c->rank != c->root) ||
      (s.who == WHO_NONROOT && c->rank == c->root))
    return 0;
  uint64_t n = c->count * type_size(c->datatype);
  if (s.mult == SPAN_RANKS)
    n = c->nranks > 0 ? n * (uint64_t)c->nranks : 0;
  return n;
}

/* ---- communicators ------------------------------------------------------------- */
struct comm {
  _Atomic uint64_t handle;  /* 0: free slot */
  uint64_t id;
  int32_t rank, nranks, device;
  _Atomic uint32_t splits;  /* ncclCommSplit calls on it so far */
};
#define MAX_COMMS 1024
static struct comm comms[MAX_COMMS];
static _Atomic unsigned ncomms; /* slots used (never shrinks) */
static pthread_mutex_t comms_lock = PTHREAD_MUTEX_INITIALIZER;

static struct comm *comm_find(uint64_t h)
{
  unsigned n = atomic_load_explicit(&ncomms, memory_order_acquire);
  for (unsigned i = n; h && i-- > 0;)
    if (atomic_load_explicit(&comms[i].handle, memory_order_acquire) == h)
      return &comms[i];
  return NULL;
}

static struct comm *comm_add(uint64_t h, uint64_t id, int rank, int nranks,
                             int device)
{
  pthread_mutex_lock(&comms_lock);
  struct comm *c = comm_find(h);
  unsigned n = atomic_load(&ncomms);
  for (unsigned i = 0; !c && i < n; i++)
    if (!atomic_load(&comms[i].handle))
      c = &comms[i];
  if (!c && n < MAX_COMMS) {
    c = &comms[n];
    atomic_store(&ncomms, n + 1);
  }
  if (c) {
    atomic_store(&c->handle, 0);
    c->id = id, c->rank = rank, c->nranks = nranks, c->device = device;
    atomic_store(&c->splits, 0);
    atomic_store_explicit(&c->handle, h, memory_order_release);
  }
  pthread_mutex_unlock(&comms_lock);
  return c;
}

void cl_nccl_comms_atfork_prepare(void) { pthread_mutex_lock(&comms_lock); }
void cl_nccl_comms_atfork_parent(void) { pthread_mutex_unlock(&comms_lock); }
void cl_nccl_comms_atfork_child(void) { pthread_mutex_init(&comms_lock, NULL); }

static void comm_remove(uint64_t h)
{
  pthread_mutex_lock(&comms_lock);
  struct comm *c = comm_find(h);
  if (c)
    atomic_store(&c->handle, 0);
  pthread_mutex_unlock(&comms_lock);
}

/* what NCCL says of a communicator (rank, size, device; -1 when it cannot) */
static void comm_ask(ncclComm_t comm, int *rank, int *nranks, int *device)
{
  typedef ncclResult_t (*query_t)(ncclComm_t, int *);
  query_t r = REAL(ncclCommUserRank, query_t), n = REAL(ncclCommCount, query_t),
          d = REAL(ncclCommCuDevice, query_t);
  *rank = *nranks = *device = -1;
  if (!comm || (r && r(comm, rank)) != NCCL_SUCCESS)
    *rank = -1;
  if (!comm || (n && n(comm, nranks)) != NCCL_SUCCESS)
    *nranks = -1;
  if (!comm || (d && d(comm, device)) != NCCL_SUCCESS)
    *device = -1;
}

/* the communicator a collective names; one created before the shim saw
 * NCCL is asked about, with id 0 (its peers cannot be told) */
static struct comm *comm_of(ncclComm_t comm)
{
  struct comm *c = comm_find((uint64_t)(uintptr_t)comm);
  int rank, nranks, device;
  if (c && c->rank < 0) {
    /* a non-blocking communicator, made by now */
    comm_ask(comm, &rank, &nranks, &device);
    c->rank = rank, c->nranks = nranks, c->device = device;
  }
  if (c || !comm)
    return c;
  comm_ask(comm, &rank, &nranks, &device);
  return comm_add((uint64_t)(uintptr_t)comm, 0, rank, nranks, device);
}

/* where the keys of communicators (communicators.comm_id) start: not FNV's
 * offset basis, but what recordings of schema 4 used, so that ranks
 * recorded by different versions still match */
#define FNV_BASIS 1469598103934665603ULL

/* ---- records ------------------------------------------------------------------- */
/* a call being made: its site and start */
struct pend {
  uint64_t start_ns;
  uint32_t pystack;
  uint8_t nframes;
  uint64_t frames[CL_MAX_FRAMES];
};

static void pend_begin(struct pend *p)
{
  p->pystack = cl_pystack_capture();
  p->nframes = (uint8_t)cl_stack_capture(
      p->frames, cl_cfg.stack_depth | (p->pystack ? CL_STACK_TO_PYTHON : 0));
  p->start_ns = cl_now_ns();
}

static void fill_call(struct cl_call *c, const struct pend *p, unsigned row,
                      int result, int32_t device)
{
  memset(c, 0, offsetof(struct cl_call, frames));
  c->start_ns = p->start_ns;
  c->end_ns = cl_now_ns();
  c->api = cl_api_nccl_first + row;
  c->result = result;
  c->device = device;
  c->tid = cl_gettid();
  c->pystack = p->pystack;
  c->nframes = p->nframes;
  memcpy(c->frames, p->frames, p->nframes * sizeof *c->frames);
}

static void put(const struct cl_call *c)
{
  cl_threads_before_record();
  struct cl_record *r = cl_ring_reserve(CL_REC_CALL);
  if (!r)
    return; /* counted as dropped */
  r->type = CL_REC_CALL;
  r->u.call = *c;
  r->u.call.seq = cl_next_seq();
  cl_ring_commit();
}

/* ---- groups: calls wait for the outermost ncclGroupEnd ------------------------- */
static __thread struct {
  int depth;
  struct cl_call *v;
  unsigned n, cap;
} G;

/* keep C for the group's end; 0 when it cannot wait (then it is written now) */
static int group_keep(const struct cl_call *c)
{
  if (G.depth <= 0)
    return 0;
  if (G.n == G.cap) {
    unsigned nc = G.cap ? G.cap * 2 : 16;
    struct cl_call *v = realloc(G.v, nc * sizeof *v);
    if (!v)
      return 0;
    G.v = v, G.cap = nc;
  }
  G.v[G.n] = *c;
  G.v[G.n].coll.grouped = 1;
  G.n++;
  return 1;
}

static void group_flush(int result)
{
  uint64_t end = cl_now_ns();
  for (unsigned i = 0; i < G.n; i++) {
    G.v[i].end_ns = end;
    if (!G.v[i].result)
      G.v[i].result = result; /* the group failed: so did its work */
    put(&G.v[i]);
  }
  G.n = 0;
}

/* ---- collectives -------------------------------------------------------------- */
static void coll_end(const struct pend *p, unsigned row, const void *send,
                     void *recv, size_t count, int datatype, int redop,
                     int root, ncclComm_t comm, cudaStream_t stream, int rc)
{
  struct comm *cm = comm_of(comm);
  struct cl_call c;
  fill_call(&c, p, row, rc, cm ? cm->device : -1);
  c.a.stream = (uint64_t)(uintptr_t)stream;
  struct cl_coll *k = &c.coll;
  memset(k, 0, sizeof *k);
  k->comm = (uint64_t)(uintptr_t)comm;
  k->comm_id = cm ? cm->id : 0;
  k->send = (uint64_t)(uintptr_t)send;
  k->recv = (uint64_t)(uintptr_t)recv;
  k->count = count;
  k->datatype = datatype;
  k->redop = redop;
  k->root = root;
  k->rank = cm ? cm->rank : -1;
  k->nranks = cm ? cm->nranks : -1;
  uint64_t rb = span_bytes(rules[row].send, k), wb = span_bytes(rules[row].recv, k);
  if (rb && k->send)
    k->read_addr = k->send, k->read_bytes = rb;
  if (wb && k->recv)
    k->write_addr = k->recv, k->write_bytes = wb;
  if (!((rc == NCCL_SUCCESS || rc == NCCL_IN_PROGRESS) && group_keep(&c)))
    put(&c);
}

#define COLL(name, params, args, send, recv, count, dtype, redop, root, comm,  \
             stream)                                                           \
  typedef ncclResult_t(*t_##name) params;                                      \
  static ncclResult_t w_##name params                                          \
  {                                                                            \
    t_##name real = REAL(name, t_##name);                                      \
    if (!real)                                                                 \
      return NCCL_INTERNAL_ERROR; /* not patched without it */                 \
    if (!atomic_load_explicit(&enabled, memory_order_relaxed))                 \
      return real args;                                                        \
    struct pend p;                                                             \
    pend_begin(&p);                                                            \
    ncclResult_t rc = INSIDE(real args);                                       \
    int saved = errno;                                                         \
    coll_end(&p, NROW_##name, send, recv, count, dtype, redop, root, comm,    \
             stream, rc);                                                      \
    errno = saved;                                                             \
    return rc;                                                                 \
  }

COLL(ncclAllReduce, (const void *s, void *r, size_t n, int t, int op, ncclComm_t c, cudaStream_t st),
     (s, r, n, t, op, c, st), s, r, n, t, op, -1, c, st)
COLL(ncclBroadcast, (const void *s, void *r, size_t n, int t, int root, ncclComm_t c, cudaStream_t st),
     (s, r, n, t, root, c, st), s, r, n, t, -1, root, c, st)
COLL(ncclBcast, (void *b, size_t n, int t, int root, ncclComm_t c, cudaStream_t st),
     (b, n, t, root, c, st), b, b, n, t, -1, root, c, st)
COLL(ncclReduce, (const void *s, void *r, size_t n, int t, int op, int root, ncclComm_t c, cudaStream_t st),
     (s, r, n, t, op, root, c, st), s, r, n, t, op, root, c, st)
COLL(ncclAllGather, (const void *s, void *r, size_t n, int t, ncclComm_t c, cudaStream_t st),
     (s, r, n, t, c, st), s, r, n, t, -1, -1, c, st)
COLL(ncclReduceScatter, (const void *s, void *r, size_t n, int t, int op, ncclComm_t c, cudaStream_t st),
     (s, r, n, t, op, c, st), s, r, n, t, op, -1, c, st)
COLL(ncclAlltoAll, (const void *s, void *r, size_t n, int t, ncclComm_t c, cudaStream_t st),
     (s, r, n, t, c, st), s, r, n, t, -1, -1, c, st)
COLL(ncclGather, (const void *s, void *r, size_t n, int t, int root, ncclComm_t c, cudaStream_t st),
     (s, r, n, t, root, c, st), s, r, n, t, -1, root, c, st)
COLL(ncclScatter, (const void *s, void *r, size_t n, int t, int root, ncclComm_t c, cudaStream_t st),
     (s, r, n, t, root, c, st), s, r, n, t, -1, root, c, st)
COLL(ncclSend, (const void *s, size_t n, int t, int peer, ncclComm_t c, cudaStream_t st),
     (s, n, t, peer, c, st), s, NULL, n, t, -1, peer, c, st)
COLL(ncclRecv, (void *r, size_t n, int t, int peer, ncclComm_t c, cudaStream_t st),
     (r, n, t, peer, c, st), NULL, r, n, t, -1, peer, c, st)

/* ---- groups ------------------------------------------------------------------- */
typedef ncclResult_t (*t_group)(void);

static ncclResult_t w_ncclGroupStart(void)
{
  t_group real = REAL(ncclGroupStart, t_group);
  if (!real)
    return NCCL_INTERNAL_ERROR;
  ncclResult_t rc = INSIDE(real());
  if (rc == NCCL_SUCCESS && atomic_load_explicit(&enabled, memory_order_relaxed))
    G.depth++;
  return rc;
}

static ncclResult_t w_ncclGroupEnd(void)
{
  t_group real = REAL(ncclGroupEnd, t_group);
  if (!real)
    return NCCL_INTERNAL_ERROR;
  ncclResult_t rc = INSIDE(real());
  int saved = errno;
  if (G.depth > 0 && --G.depth == 0)
    group_flush(rc);
  errno = saved;
  return rc;
}

/* a simulated end: the group ends, nothing was issued */
typedef ncclResult_t (*t_simend)(void *);
static ncclResult_t w_ncclGroupSimulateEnd(void *info)
{
  t_simend real = REAL(ncclGroupSimulateEnd, t_simend);
  if (!real)
    return NCCL_INTERNAL_ERROR;
  ncclResult_t rc = INSIDE(real(info));
  if (G.depth > 0 && --G.depth == 0)
    G.n = 0;
  return rc;
}

/* ---- communicators -------------------------------------------------------------- */
static void comm_created(const struct pend *p, unsigned row, ncclComm_t comm,
                         uint64_t id, uint64_t parent, int rc)
{
  int rank = -1, nranks = -1, device = -1;
  if ((rc == NCCL_SUCCESS || rc == NCCL_IN_PROGRESS) && comm) {
    comm_ask(comm, &rank, &nranks, &device);
    comm_add((uint64_t)(uintptr_t)comm, id, rank, nranks, device);
  }
  struct cl_call c;
  fill_call(&c, p, row, rc, device);
  memset(&c.coll, 0, sizeof c.coll);
  c.coll.comm = (uint64_t)(uintptr_t)comm;
  c.coll.comm_id = id;
  c.coll.parent = parent;
  c.coll.rank = rank;
  c.coll.nranks = nranks;
  c.coll.root = -1;
  put(&c);
}

#define ENABLED() atomic_load_explicit(&enabled, memory_order_relaxed)

typedef ncclResult_t (*t_init)(ncclComm_t *, int, ncclUniqueId, int);
static ncclResult_t w_ncclCommInitRank(ncclComm_t *comm, int nranks,
                                       ncclUniqueId id, int rank)
{
  t_init real = REAL(ncclCommInitRank, t_init);
  if (!real)
    return NCCL_INTERNAL_ERROR;
  if (!ENABLED())
    return real(comm, nranks, id, rank);
  struct pend p;
  pend_begin(&p);
  ncclResult_t rc = INSIDE(real(comm, nranks, id, rank));
  int saved = errno;
  uint64_t h = cl_fnv1a(cl_fnv1a(FNV_BASIS, &id, sizeof id), &nranks, sizeof nranks);
  comm_created(&p, NROW_ncclCommInitRank, comm ? *comm : NULL, h, 0, rc);
  errno = saved;
  return rc;
}

typedef ncclResult_t (*t_initcfg)(ncclComm_t *, int, ncclUniqueId, int, void *);
static ncclResult_t w_ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
                                             ncclUniqueId id, int rank,
                                             void *config)
{
  t_initcfg real = REAL(ncclCommInitRankConfig, t_initcfg);
  if (!real)
    return NCCL_INTERNAL_ERROR;
  if (!ENABLED())
    return real(comm, nranks, id, rank, config);
  struct pend p;
  pend_begin(&p);
  ncclResult_t rc = INSIDE(real(comm, nranks, id, rank, config));
  int saved = errno;
  uint64_t h = cl_fnv1a(cl_fnv1a(FNV_BASIS, &id, sizeof id), &nranks, sizeof nranks);
  comm_created(&p, NROW_ncclCommInitRankConfig, comm ? *comm : NULL, h, 0, rc);
  errno = saved;
  return rc;
}

typedef ncclResult_t (*t_initscal)(ncclComm_t *, int, int, int, ncclUniqueId *,
                                   void *);
static ncclResult_t w_ncclCommInitRankScalable(ncclComm_t *comm, int nranks,
                                               int rank, int nid,
                                               ncclUniqueId *ids, void *config)
{
  t_initscal real = REAL(ncclCommInitRankScalable, t_initscal);
  if (!real)
    return NCCL_INTERNAL_ERROR;
  if (!ENABLED())
    return real(comm, nranks, rank, nid, ids, config);
  struct pend p;
  pend_begin(&p);
  ncclResult_t rc = INSIDE(real(comm, nranks, rank, nid, ids, config));
  int saved = errno;
  uint64_t h = FNV_BASIS;
  for (int i = 0; ids && i < nid; i++)
    h = cl_fnv1a(h, &ids[i], sizeof *ids);
  h = cl_fnv1a(h, &nranks, sizeof nranks);
  comm_created(&p, NROW_ncclCommInitRankScalable, comm ? *comm : NULL, h, 0, rc);
  errno = saved;
  return rc;
}

typedef ncclResult_t (*t_initall)(ncclComm_t *, int, const int *);
static ncclResult_t w_ncclCommInitAll(ncclComm_t *comms_out, int ndev,
                                      const int *devlist)
{
  static _Atomic uint64_t calls;
  t_initall real = REAL(ncclCommInitAll, t_initall);
  if (!real)
    return NCCL_INTERNAL_ERROR;
  if (!ENABLED())
    return real(comms_out, ndev, devlist);
  struct pend p;
  pend_begin(&p);
  ncclResult_t rc = INSIDE(real(comms_out, ndev, devlist));
  int saved = errno;
  /* one clique of this process: its ranks are all here */
  uint64_t k = atomic_fetch_add(&calls, 1), pid = (uint64_t)getpid();
  uint64_t h = cl_fnv1a(cl_fnv1a(cl_fnv1a(FNV_BASIS, "all", 3), &pid, sizeof pid), &k, sizeof k);
  for (int i = 0; i < ndev && comms_out; i++)
    comm_created(&p, NROW_ncclCommInitAll, rc == NCCL_SUCCESS ? comms_out[i] : NULL,
                 h, 0, rc);
  errno = saved;
  return rc;
}

typedef ncclResult_t (*t_split)(ncclComm_t, int, int, ncclComm_t *, void *);
static ncclResult_t w_ncclCommSplit(ncclComm_t comm, int color, int key,
                                    ncclComm_t *newcomm, void *config)
{
  t_split real = REAL(ncclCommSplit, t_split);
  if (!real)
    return NCCL_INTERNAL_ERROR;
  if (!ENABLED())
    return real(comm, color, key, newcomm, config);
  struct pend p;
  pend_begin(&p);
  /* every rank of the parent calls it, in the same order */
  struct comm *parent = comm_of(comm);
  uint32_t nth = parent ? atomic_fetch_add(&parent->splits, 1) : 0;
  ncclResult_t rc = INSIDE(real(comm, color, key, newcomm, config));
  int saved = errno;
  if (rc != NCCL_SUCCESS || (newcomm && *newcomm)) {
    uint64_t h = parent && parent->id ? cl_fnv1a(FNV_BASIS, &parent->id, 8) : 0;
    if (h) {
      h = cl_fnv1a(h, &nth, sizeof nth);
      h = cl_fnv1a(h, &color, sizeof color);
    }
    comm_created(&p, NROW_ncclCommSplit, newcomm ? *newcomm : NULL, h,
                 (uint64_t)(uintptr_t)comm, rc);
  }
  errno = saved;
  return rc;
}

typedef ncclResult_t (*t_shrink)(ncclComm_t, int *, int, ncclComm_t *, void *, int);
static ncclResult_t w_ncclCommShrink(ncclComm_t comm, int *exclude, int nexclude,
                                     ncclComm_t *newcomm, void *config, int flags)
{
  t_shrink real = REAL(ncclCommShrink, t_shrink);
  if (!real)
    return NCCL_INTERNAL_ERROR;
  if (!ENABLED())
    return real(comm, exclude, nexclude, newcomm, config, flags);
  struct pend p;
  pend_begin(&p);
  /* the ranks that stay call it, in the same order */
  struct comm *parent = comm_of(comm);
  uint32_t nth = parent ? atomic_fetch_add(&parent->splits, 1) : 0;
  ncclResult_t rc = INSIDE(real(comm, exclude, nexclude, newcomm, config, flags));
  int saved = errno;
  uint64_t h = parent && parent->id ? cl_fnv1a(FNV_BASIS, &parent->id, 8) : 0;
  if (h) {
    h = cl_fnv1a(h, &nth, sizeof nth);
    for (int i = 0; exclude && i < nexclude; i++)
      h = cl_fnv1a(h, &exclude[i], sizeof *exclude);
  }
  comm_created(&p, NROW_ncclCommShrink, newcomm ? *newcomm : NULL, h,
               (uint64_t)(uintptr_t)comm, rc);
  errno = saved;
  return rc;
}

typedef ncclResult_t (*t_destroy)(ncclComm_t);
static ncclResult_t comm_gone(t_destroy real, unsigned row, ncclComm_t comm)
{
  if (!real)
    return NCCL_INTERNAL_ERROR;
  if (!ENABLED())
    return real(comm);
  struct pend p;
  pend_begin(&p);
  struct comm *cm = comm_find((uint64_t)(uintptr_t)comm);
  int32_t device = cm ? cm->device : -1;
  uint64_t id = cm ? cm->id : 0;
  ncclResult_t rc = INSIDE(real(comm));
  int saved = errno;
  if (rc == NCCL_SUCCESS)
    comm_remove((uint64_t)(uintptr_t)comm);
  struct cl_call c;
  fill_call(&c, &p, row, rc, device);
  memset(&c.coll, 0, sizeof c.coll);
  c.coll.comm = (uint64_t)(uintptr_t)comm;
  c.coll.comm_id = id;
  c.coll.rank = c.coll.nranks = c.coll.root = -1;
  put(&c);
  errno = saved;
  return rc;
}

static ncclResult_t w_ncclCommDestroy(ncclComm_t comm)
{
  return comm_gone(REAL(ncclCommDestroy, t_destroy), NROW_ncclCommDestroy, comm);
}

static ncclResult_t w_ncclCommAbort(ncclComm_t comm)
{
  return comm_gone(REAL(ncclCommAbort, t_destroy), NROW_ncclCommAbort, comm);
}

const char *cl_nccl_kind(unsigned i)
{
  static const char *const kinds[NROWS] = {
#define CL_NCCL_COLL(name, kind, ...) [NROW_##name] = kind,
#include "cudalens/nccl.def"
  };
  return i < NROWS ? kinds[i] : NULL;
}

/* ---- the table gotpatch.c patches from ---------------------------------------- */
const struct cl_nccl_fn cl_nccl_fns[] = {
#define CL_NCCL_COLL(name, ...) {#name, (void *)w_##name, &real_##name},
#define CL_NCCL_COMM(name, ...) {#name, (void *)w_##name, &real_##name},
#define CL_NCCL_GROUP(name, ...) {#name, (void *)w_##name, &real_##name},
#include "cudalens/nccl.def"
    /* looked up, not wrapped */
    {"ncclCommCuDevice", NULL, &real_ncclCommCuDevice},
    {"ncclCommUserRank", NULL, &real_ncclCommUserRank},
    {"ncclCommCount", NULL, &real_ncclCommCount},
};
const unsigned cl_nccl_count = sizeof cl_nccl_fns / sizeof *cl_nccl_fns;

/* find_races.c - the race kinds (stream-race, masked-race,
 * staged-copy-race, thread-handoff-race, shared-argument-race,
 * library-race, stale-argument-race; analyzer/checks/checks.def): walks
 * the recording's calls in seq order through the replay (replay.h), feeds
 * the happens-before engine (hb_engine.h) with what each call means, and
 * turns the unordered pairs of accesses it reports into findings, one per
 * (kind, earlier call site, later call site) with a count.
 *
 * What orders what is the ordering table (include/cudalens/ops.def, read
 * through common/semantics.c), each rule with the sentence of the CUDA
 * documentation it encodes: which operations are stream work, what the
 * host knows when a synchronization, copy or memset returns (the copy and
 * memset rules by mode, direction and memory kind), the legacy default
 * stream's implicit synchronization with blocking streams, and which edges
 * are only shown, not promised (pageable async copies, cudaFree): those
 * make a pair a warning, never hide it.  Host threads each have a clock;
 * thread creation and join (thread_edges) order them; a handoff cudalens
 * cannot see makes a pair a thread-handoff-race, not a stream-race; so does
 * one from the thread that ran a host function (host_func_runs).  Events
 * order a wait after the latest record before it; work captured into a
 * graph does not run at the call.  A stream-race whose two calls were made
 * inside one of NVIDIA's libraries, on a stream such a library created for
 * itself, is a library-race.
 * Memory: copies and memsets touch their exact ranges; a kernel touches the
 * pointers in its arguments (kernel_args), read-only through a const
 * pointer parameter (cudalens/mangle_const.h), else possibly written
 * ("possible" rather than "definite"), and perhaps not at all when the word
 * lies in a by-value structure the program did not fully initialize
 * (uninit_params: a stale-argument-race); an NCCL collective (collectives,
 * schema 4) reads and writes the ranges the shim recorded from nccl.def's
 * rule, on its stream like any stream work.
 * Footprints (--footprints; model/footprints.h): for a kernel function the
 * footprint file has, what it accessed through each pointer in the
 * instrumented run replaces the guess: a read, a write or an atomic update,
 * definite, over the pointer's range [p + lo, p + hi) when every
 * instrumented launch had that range (else at the pointer, as without a
 * footprint), and nothing through a pointer it never accessed.  A pair so
 * decided is a stream-race, or nothing; the finding says the footprint was
 * sampled in a separate run. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checks/analyses.h"
#include "checks/find_common.h"
#include "checks/hb_engine.h"
#include "cudalens/format.h"
#include "cudalens/mangle_const.h"
#include "cudalens/semantics.h"
#include "model/calls.h"
#include "model/collectives.h"
#include "model/footprints.h"
#include "model/graphs.h"
#include "model/host_order.h"
#include "model/memmodel.h"
#include "model/names.h"
#include "model/replay.h"
#include "model/streams.h"
#include "sites/demangle.h"
#include "u64map.h"
#include "util.h"

enum acc_op { ACC_KERNEL, ACC_COPY_SRC, ACC_COPY_DST, ACC_MEMSET, ACC_ALLOC,
              ACC_FREE, ACC_COLL_SEND, ACC_COLL_RECV };

#define UNTRACKED_BUCKET 1 /* memory outside known allocations */
#define MAX_PARAMS 64

/* the kinds of finding this analysis makes (cudalens-report(1)) */
enum race_kind {
  RK_STREAM, RK_MASKED, RK_STAGED, RK_HANDOFF, RK_SHARED_ARG, RK_LIBRARY,
  RK_STALE_ARG, RK_INDIRECT
};
/* their entries in the registry (checks.def) */
static const enum check_id race_checks[] = {
    CHECK_STREAM_RACE, CHECK_MASKED_RACE, CHECK_STAGED_COPY_RACE,
    CHECK_THREAD_HANDOFF_RACE, CHECK_SHARED_ARGUMENT_RACE, CHECK_LIBRARY_RACE,
    CHECK_STALE_ARGUMENT_RACE, CHECK_INDIRECT_RACE};

struct race {
  enum race_kind kind;
  unsigned implicit;   /* masked: 1 legacy, 2 unpromised, 3 both */
  struct hb_access prev, cur;
  int64_t alloc_seq;   /* -1 unknown */
  uint64_t alloc_addr, alloc_size;
  int alloc_kind;
  int64_t res_seq;     /* mapped: the range's reservation, -1 unknown */
  uint64_t res_addr, res_size;
  uint64_t count;
  int definite;        /* every occurrence was definite */
  int64_t hostfn_call; /* handoff: the host function whose thread knew the
                        * first access was done (its enqueueing call), 0 */
  int64_t hostfn_tid;
};

struct kname {
  int n;               /* parameters classified, -1 unknown */
  bool untyped;        /* no C++ signature (extern "C", Triton, XLA) */
  const struct fp_kernel *fp; /* its footprint (--footprints), else NULL */
  enum param_class cls[MAX_PARAMS];
};

struct walk {
  struct report_ctx *ctx;
  struct hb_engine *e;
  struct streams streams;
  struct memmodel *mm;       /* the replay's, during the walk */
  struct u64map stream_ids;  /* instance key -> hb stream */
  char **stream_desc;        /* per hb stream */
  int64_t *stream_created;   /* per hb stream: its creating call, -1 none */
  int64_t *stream_handle;
  size_t nstream_desc, capstream_desc;
  struct u64map threads;     /* tid -> hb thread */
  /* capture: per hb stream, the capture it belongs to (0 none) */
  uint64_t *capture;
  size_t ncapture;
  struct u64map capture_events; /* event handle -> capture id */
  /* graphs: the recorded structures, and per executable graph its lanes
   * (one hb stream per node index) */
  struct graphs graphs;
  struct u64map exec_lanes;  /* exec handle -> index into lanes */
  struct lanes { uint32_t *v; size_t n; } *lanes;
  size_t nlanes, caplanes;
  /* kernel names */
  struct u64map knames_idx;  /* strings.id -> index */
  /* where the recording has words that may be stale (uninit_params): per
   * kernel name, its launches, and per (name, parameter, offset) the
   * launches with a pointer there (fields_count) */
  struct u64map launches, fields;
  struct kname *knames;
  size_t nknames, capknames;
  /* races */
  struct race *races;
  size_t nraces, capraces;
  struct u64map race_idx;    /* hash -> index */
  /* threads that ran host functions: hb thread, its latest run's
   * enqueueing call and tid */
  struct hostfn_thread {
    uint32_t thread;
    int64_t call, tid;
  } *hostfn_threads;
  size_t nhostfn_threads, caphostfn_threads;
  /* device and managed allocations by size and order (footprints'
   * fp_unattributed): per size the count so far, and per (size, index) the
   * allocation (ordinals) */
  struct u64map size_count, ordinal_idx;
  struct ordinal { uint64_t size, index, address; int64_t seq; } *ordinals;
  size_t nordinals, capordinals;
  /* the access being checked */
  const struct alloc *cur_alloc;
  int64_t cur_alloc_seq;
};

/* ---- streams and threads -------------------------------------------------- */

static uint32_t hb_stream_of(struct walk *w, bool has_handle, int64_t handle,
                             int64_t device, int64_t seq, const char *api,
                             int64_t tid)
{
  size_t i = streams_lookup(&w->streams, has_handle, handle, device, seq, api);
  const struct stream *st = &w->streams.v[i];
  uint64_t key = (uint64_t)(i + 1) << 32;
  if (st->kind == STREAM_PER_THREAD)
    key |= (uint32_t)tid;
  uint64_t id;
  if (u64map_get(&w->stream_ids, key, &id))
    return (uint32_t)id;
  unsigned flags = 0;
  char *desc;
  int64_t dev = st->device >= 0 ? st->device : device;
  switch (st->kind) {
  case STREAM_LEGACY:
    flags = HB_STREAM_LEGACY;
    desc = st->name ? stream_title(w->ctx->db, w->ctx->cs, &w->streams, i)
                    : xasprintf("the legacy default stream (device %" PRId64 ")",
                                dev);
    break;
  case STREAM_PER_THREAD: {
    flags = HB_STREAM_BLOCKING;
    char *who = thread_title(w->ctx->db, tid);
    desc = st->name ? xasprintf("the per-thread default stream \"%s\" of %s",
                                st->name, who)
                    : xasprintf("the per-thread default stream of %s", who);
    free(who);
    break;
  }
  default:
    /* the coverage rule answers for unknown flags as for blocking */
    if (stream_class(st) != CL_SC_NONBLOCKING)
      flags = HB_STREAM_BLOCKING;
    desc = stream_title(w->ctx->db, w->ctx->cs, &w->streams, i);
    break;
  }
  uint32_t h = hb_new_stream(w->e, dev, flags);
  u64map_put(&w->stream_ids, key, h);
  size_t cap = w->capstream_desc;
  GROW(w->stream_desc, w->capstream_desc, (size_t)h + 1);
  if (cap != w->capstream_desc)
    w->stream_created = xrealloc(w->stream_created,
                                 w->capstream_desc * sizeof *w->stream_created);
  for (size_t i = w->nstream_desc; i < h; i++) {
    w->stream_desc[i] = NULL; /* host pseudo-streams (hb_host_issue) */
    w->stream_created[i] = -1;
  }
  w->stream_desc[h] = desc;
  w->stream_created[h] = st->created_seq;
  w->nstream_desc = (size_t)h + 1;
  if (w->ncapture <= h) {
    w->capture = xrealloc(w->capture, ((size_t)h + 1) * sizeof *w->capture);
    memset(w->capture + w->ncapture, 0,
           ((size_t)h + 1 - w->ncapture) * sizeof *w->capture);
    w->ncapture = (size_t)h + 1;
  }
  return h;
}

static uint32_t thread_of(struct walk *w, int64_t tid)
{
  uint64_t id;
  if (u64map_get(&w->threads, (uint64_t)tid, &id))
    return (uint32_t)id;
  uint32_t t = hb_new_thread(w->e);
  u64map_put(&w->threads, (uint64_t)tid, t);
  return t;
}

/* ---- kernels -------------------------------------------------------------- */

static const struct kname *kname_of(struct walk *w, int64_t name_id,
                                    const char *mangled)
{
  uint64_t i;
  if (name_id >= 0 && u64map_get(&w->knames_idx, (uint64_t)name_id, &i))
    return &w->knames[i];
  GROW(w->knames, w->capknames, w->nknames + 1);
  struct kname *k = &w->knames[w->nknames];
  k->n = mangled ? mangle_param_classes(mangled, k->cls, MAX_PARAMS) : -1;
  k->fp = footprints_kernel(w->ctx->fp, mangled);
  /* a C++ name whose parameters were not all classified keeps its types */
  k->untyped = !mangled || strncmp(mangled, "_Z", 2) != 0;
  if (k->n > MAX_PARAMS)
    k->n = MAX_PARAMS;
  if (name_id >= 0)
    u64map_put(&w->knames_idx, (uint64_t)name_id, w->nknames);
  return &w->knames[w->nknames++];
}

/* ---- words that may be stale ---------------------------------------------- *
 * The recorder marks a by-value structure that also held host code (a
 * return address left on the stack: the structure was not fully
 * initialized).  That does not make every pointer in it stale: PyTorch's
 * ReduceOp sets its source and destination but leaves the offset tables of
 * the dimensions a tensor lacks as the stack held them.  A place in the
 * structure that held a pointer into an allocation at every launch of the
 * kernel is a field the program sets; one that did only at some launches
 * (an address slot of a table filled as far as each launch needs, such as
 * PyTorch's TensorListMetadata) may be stale. */
static uint64_t field_key(int64_t name, int64_t param, int64_t offset)
{
  return (uint64_t)name << 22 | (uint64_t)(param & 63) << 16 |
         (uint64_t)(offset & 0xffff);
}

/* counts the launches of each kernel name and the places of its pointers,
 * when some word may be stale */
static void fields_count(struct walk *w)
{
  if (!replay_has_uninit(w->ctx->db))
    return;
  struct replay r;
  replay_begin(&r, w->ctx->db, w->ctx->act);
  while (replay_next(&r)) {
    const struct replay_op *o = &r.op;
    if (o->op != CL_OP_KERNEL || o->kname < 0 || o->result != 0)
      continue;
    uint64_t n = 0;
    u64map_get(&w->launches, (uint64_t)o->kname, &n);
    u64map_put(&w->launches, (uint64_t)o->kname, n + 1);
    for (size_t i = 0; i < o->nargs; i++) {
      /* one count per launch and place (a place holds one word) */
      uint64_t key = field_key(o->kname, o->args[i].param, o->args[i].offset);
      uint64_t c = 0;
      u64map_get(&w->fields, key, &c);
      u64map_put(&w->fields, key, c + 1);
    }
  }
  replay_end(&r);
}

/* did this place hold a pointer at every launch of kernel NAME? */
static bool always_a_pointer(const struct walk *w, int64_t name, int64_t param,
                             int64_t offset)
{
  uint64_t n = 0, c = 0;
  if (name < 0 || param < 0 || param > 63 || offset < 0 || offset > 0xffff ||
      !u64map_get(&w->launches, (uint64_t)name, &n))
    return false;
  u64map_get(&w->fields, field_key(name, param, offset), &c);
  return c == n;
}

/* ---- races ---------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

static void on_race(void *ud, const struct hb_access *prev,
                    const struct hb_access *cur, unsigned mask,
                    unsigned handoff)
{
  struct walk *w = ud;
  enum race_kind kind;
  unsigned implicit = 0;
  if (!(mask & 1u)) {
    /* unordered by the documented semantics: an error, unless a host
     * handoff cudalens cannot see may order it */
    kind = handoff & 1u ? RK_HANDOFF : RK_STREAM;
  } else {
    /* which implicit edges it needs, granting unseen host handoffs: a pair
     * that a handoff could order without them is not reported */
    if (!(handoff & (1u << HB_EDGE_UNPROMISED)))
      implicit = HB_EDGE_UNPROMISED;
    else if (!(handoff & (1u << HB_EDGE_LEGACY)))
      implicit = HB_EDGE_LEGACY;
    else if (!(handoff & (1u << (HB_EDGE_LEGACY | HB_EDGE_UNPROMISED))))
      implicit = HB_EDGE_LEGACY | HB_EDGE_UNPROMISED;
    else
      return;
    /* the device write of a blocking copy from pageable memory, ordered
     * only by the copy having finished in practice: the staging rule */
    kind = implicit == HB_EDGE_UNPROMISED && prev->op == ACC_COPY_DST &&
                   prev->rule == CL_RULE_SYNC_HTOD_PAGEABLE
               ? RK_STAGED : RK_MASKED;
  }
  /* two atomic updates do not race: "the operation is atomic in the sense
   * that it is guaranteed to be performed without interference from other
   * threads" (CUDA C++ Programming Guide, Atomic Functions) */
  if (prev->atomic && cur->atomic)
    return;
  int definite = prev->definite && cur->definite;
  /* The same kernel launched on several streams with the same pointer in
   * the same non-const parameter (and place inside it) is a race if the
   * kernel writes through it, and the common pattern of a read-only input
   * shared by concurrent launches (NVIDIA's simpleStreams) if it does not:
   * without a definite write on either side it is a warning of its own.
   * So is a pair whose only writes are guesses about kernels without a C++
   * signature (extern "C", Triton's and XLA's kernels), whose parameters'
   * types are unknown: nothing says either writes (two nodes of an XLA
   * command buffer that read one input have no edge, rightly). */
  bool guessed_writes = (!prev->write || (prev->untyped && !prev->definite)) &&
                        (!cur->write || (cur->untyped && !cur->definite));
  if (kind == RK_STREAM && prev->op == ACC_KERNEL && cur->op == ACC_KERNEL &&
      ((!prev->definite && !cur->definite && prev->kernel &&
        prev->kernel == cur->kernel && prev->param == cur->param &&
        prev->offset == cur->offset) ||
       guessed_writes))
    kind = RK_SHARED_ARG;
  /* a kernel's claim that may be a stale word (kparams.c in the shim): it
   * may never touch the memory */
  if ((kind == RK_STREAM || kind == RK_SHARED_ARG) &&
      (prev->uninit || cur->uninit))
    kind = RK_STALE_ARG;
  /* memory placed by the allocations' order in two runs */
  if ((kind == RK_STREAM || kind == RK_SHARED_ARG || kind == RK_STALE_ARG) &&
      (prev->indirect || cur->indirect))
    kind = RK_INDIRECT;
  /* group by call sites; without stacks, by the operations */
  uint64_t h = mix(0, (uint64_t)kind);
  h = mix(h, implicit);
  h = mix(h, (uint64_t)prev->stack);
  h = mix(h, (uint64_t)cur->stack);
  h = mix(h, prev->op);
  h = mix(h, cur->op);
  h = mix(h, (uint64_t)prev->origin); /* graph nodes: the calls that added them */
  h = mix(h, (uint64_t)cur->origin);
  if (prev->stack < 0 || cur->stack < 0) {
    h = mix(h, (uint64_t)prev->param);
    h = mix(h, (uint64_t)cur->param);
  }
  uint64_t i;
  if (u64map_get(&w->race_idx, h, &i)) {
    struct race *r = &w->races[i];
    r->count++;
    r->definite &= definite;
    return;
  }
  GROW(w->races, w->capraces, w->nraces + 1);
  struct race *r = &w->races[w->nraces];
  memset(r, 0, sizeof *r);
  r->kind = kind;
  r->implicit = implicit;
  r->prev = *prev;
  r->cur = *cur;
  r->count = 1;
  r->definite = definite;
  r->alloc_seq = -1;
  r->res_seq = -1;
  for (size_t k = 0; kind == RK_HANDOFF && k < w->nhostfn_threads; k++)
    if (hb_thread_knows(w->e, w->hostfn_threads[k].thread, prev->stream,
                        prev->epoch) & 1u) {
      r->hostfn_call = w->hostfn_threads[k].call;
      r->hostfn_tid = w->hostfn_threads[k].tid;
    }
  if (w->cur_alloc) {
    r->alloc_seq = w->cur_alloc_seq;
    r->alloc_addr = w->cur_alloc->address;
    r->alloc_size = w->cur_alloc->size;
    r->alloc_kind = w->cur_alloc->kind;
    const struct alloc *res =
        r->alloc_kind == CL_MEMKIND_MAPPED
            ? memmodel_reservation(w->mm, r->alloc_addr) : NULL;
    if (res) {
      r->res_seq = res->seq;
      r->res_addr = res->address;
      r->res_size = res->size;
    }
  }
  u64map_put(&w->race_idx, h, w->nraces++);
}

static void access_in(struct walk *w, const struct alloc *al,
                      const struct hb_access *a)
{
  w->cur_alloc = al;
  w->cur_alloc_seq = al ? al->seq : -1;
  uint64_t bucket = al ? al->address : UNTRACKED_BUCKET;
  if (!al && a->point)
    return; /* a kernel argument outside known memory */
  hb_access(w->e, bucket, a, on_race, w);
  w->cur_alloc = NULL;
}

/* Each allocation is a bucket; a range over adjacent mappings (a tensor
 * that an allocator placed across two cuMemMap'ed chunks of one reserved
 * range) is its part in each of them. */
static void access(struct walk *w, const struct hb_access *a)
{
  const struct alloc *al = memmodel_find(w->mm, a->lo);
  if (a->point || !al || al->kind != CL_MEMKIND_MAPPED ||
      a->hi - al->address <= al->size) {
    access_in(w, al, a);
    return;
  }
  struct hb_access part = *a;
  while (al && al->kind == CL_MEMKIND_MAPPED && part.lo < a->hi) {
    uint64_t end = al->address + al->size;
    part.hi = end < a->hi ? end : a->hi;
    access_in(w, al, &part);
    part.lo = part.hi;
    al = memmodel_find(w->mm, part.lo);
  }
}

/* ---- the walk ------------------------------------------------------------- */


/* what the calling thread knows when a copy or memset returns, from its
 * rule (include/cudalens/ops.def, section 2) */
static void host_learns(struct walk *w, const struct cl_copy_rule *rule,
                        uint32_t t, uint32_t s, const int64_t devs[2])
{
  enum hb_edge edge = rule->edge == CL_EDGE_UNPROMISED ? HB_EDGE_UNPROMISED
                                                       : HB_EDGE_ALWAYS;
  if (rule->after == CL_AFTER_DONE)
    hb_host_wait_stream(w->e, t, s, edge);
  else if (rule->after == CL_AFTER_DEVICES)
    for (int i = 0; i < 2; i++)
      if (devs[i] >= 0)
        hb_device_barrier(w->e, devs[i], s);
}

static void do_copy(struct walk *w, struct replay *r, uint32_t t, uint32_t s)
{
  const struct replay_op *o = &r->op;
  int64_t seq = o->seq, stack = o->stack;
  bool memset_op = o->is_memset;
  uint64_t dst = o->dst, src = o->src;
  uint64_t bytes = o->bytes < 0 ? 0 : (uint64_t)o->bytes;
  struct call_act ca;
  replay_activity(r, &ca);

  const struct cl_copy_rule *rule = replay_copy_rule(r, &ca);

  if (rule->host_waits_before)
    hb_host_wait_stream(w->e, t, s, HB_EDGE_ALWAYS);
  int64_t devs[2] = {o->src_device, o->dst_device};
  if (rule->after == CL_AFTER_DEVICES)
    for (int i = 0; i < 2; i++)
      if (devs[i] >= 0)
        hb_stream_wait_device(w->e, s, devs[i]);

  struct hb_access a = {.seq = seq, .stack = stack, .definite = 1,
                        .param = -1, .rule = (uint8_t)rule->id};
  uint32_t epoch = 0;
  if (!memset_op && src && bytes) {
    if (rule->source_by_host) {
      /* the calling thread reads the source before the call returns */
      a.epoch = hb_host_issue(w->e, t, &a.stream);
    } else {
      a.stream = s;
      a.epoch = epoch = hb_issue(w->e, t, s);
    }
    a.lo = src;
    a.hi = src + bytes;
    a.write = 0;
    a.op = ACC_COPY_SRC;
    access(w, &a);
  }
  a.stream = s;
  a.epoch = epoch ? epoch : hb_issue(w->e, t, s);
  if (dst && bytes) {
    a.lo = dst;
    a.hi = dst + bytes;
    a.write = 1;
    a.op = memset_op ? ACC_MEMSET : ACC_COPY_DST;
    access(w, &a);
  }
  host_learns(w, rule, t, s, devs);
}

/* PROTO (a launch's access) as a footprint of kind KIND says it is:
 * read, written or updated atomically, definitely, whatever the parameter's
 * type or marks suggested */
static struct hb_access fp_as(struct hb_access proto, enum cl_fp_kind kind)
{
  proto.write = kind != CL_FP_READ;
  proto.atomic = kind == CL_FP_ATOMIC;
  proto.definite = 1;
  proto.untyped = 0;
  proto.uninit = 0;
  proto.footprint = 1;
  return proto;
}

/* Kernel K (with a footprint) got pointer VALUE at PARAM, OFFSET: an
 * access per kind of access its footprint has there (PROTO: the launch's),
 * over the footprint's range when it was the same in every instrumented
 * launch, cut to the pointer's allocation (pointer arithmetic leaves an
 * array only by undefined behaviour: C++, [expr.add]), else at the pointer
 * as without a footprint.  None where the footprint has none. */
static void fp_access(struct walk *w, const struct fp_kernel *k,
                      int64_t param, int64_t offset, uint64_t value,
                      struct hb_access proto)
{
  const struct alloc *al = memmodel_find(w->mm, value);
  for (size_t i = 0; i < k->nr; i++) {
    const struct fp_range *r = &k->r[i];
    if (r->param != param || r->offset != offset)
      continue;
    struct hb_access a = fp_as(proto, r->kind);
    a.lo = a.hi = value;
    a.point = 1;
    if (r->exact && al && al->size <= INT64_MAX) {
      /* relative to the allocation's start, in [0, size] */
      int64_t at = (int64_t)(value - al->address), size = (int64_t)al->size;
      int64_t lo = sat_add(at, r->lo), hi = sat_add(at, r->hi);
      lo = lo < 0 ? 0 : lo > size ? size : lo;
      hi = hi < 0 ? 0 : hi > size ? size : hi;
      if (lo >= hi)
        continue;
      a.lo = al->address + (uint64_t)lo;
      a.hi = al->address + (uint64_t)hi;
      a.point = 0;
    }
    access(w, &a);
  }
}

static uint64_t ordinal_key(uint64_t size, uint64_t index)
{
  return mix(mix(0, size), index);
}

/* an allocation made (CL_OP_ALLOC): its place among the device and managed
 * allocations of its size, as the collector counts them */
static void count_alloc(struct walk *w, const struct replay_op *o)
{
  if (!w->ctx->fp || o->mem_size <= 0 ||
      (o->mem_kind != CL_MEMKIND_DEVICE && o->mem_kind != CL_MEMKIND_DEVICE_ASYNC &&
       o->mem_kind != CL_MEMKIND_MANAGED))
    return;
  uint64_t size = (uint64_t)o->mem_size, n = 0;
  u64map_get(&w->size_count, size, &n);
  u64map_put(&w->size_count, size, ++n);
  GROW(w->ordinals, w->capordinals, w->nordinals + 1);
  w->ordinals[w->nordinals] = (struct ordinal){size, n, o->mem_addr, o->seq};
  u64map_put(&w->ordinal_idx, ordinal_key(size, n), w->nordinals++);
}

/* Kernel K (with a footprint) reached memory through pointers it read from
 * memory: per such access of its footprint, the allocation of the recorded
 * run made in the same order among those of the same size, while it is
 * live (PROTO: the launch's) */
static void fp_indirect_access(struct walk *w, const struct fp_kernel *k,
                               struct hb_access proto)
{
  for (size_t i = 0; i < k->nind; i++) {
    const struct fp_indirect *x = &k->ind[i];
    uint64_t j;
    if (!u64map_get(&w->ordinal_idx,
                    ordinal_key((uint64_t)x->alloc_size, (uint64_t)x->alloc_index),
                    &j))
      continue;
    const struct ordinal *d = &w->ordinals[j];
    const struct alloc *al = memmodel_find(w->mm, d->address);
    if (d->size != (uint64_t)x->alloc_size ||
        d->index != (uint64_t)x->alloc_index || !al || al->seq != d->seq ||
        al->address != d->address)
      continue; /* not that allocation, or freed */
    struct hb_access a = fp_as(proto, x->kind);
    a.lo = al->address + (uint64_t)x->lo;
    a.hi = al->address + (uint64_t)(x->hi < (int64_t)al->size ? x->hi
                                                              : (int64_t)al->size);
    if (a.lo >= a.hi)
      continue;
    a.point = 0;
    a.indirect = 1;
    a.param = -1;
    a.offset = 0;
    access(w, &a);
  }
}

static void do_kernel(struct walk *w, const struct replay_op *o, uint32_t t,
                      uint32_t s)
{
  int64_t seq = o->seq, stack = o->stack;
  uint32_t epoch = hb_issue(w->e, t, s);
  const struct kname *k = kname_of(w, o->kname, o->kmangled);
  for (size_t i = 0; i < o->nargs; i++) {
    int64_t param = o->args[i].param, offset = o->args[i].offset;
    uint64_t value = o->args[i].value;
    bool ro = k->n >= 0 && param >= 0 && param < k->n && offset == 0 &&
              k->cls[param] == PARAM_PTR_CONST;
    struct hb_access a = {.seq = seq, .stack = stack, .stream = s,
                          .epoch = epoch, .lo = value, .hi = value,
                          .point = 1, .write = !ro, .definite = ro,
                          .untyped = k->untyped,
                          .uninit = o->args[i].uninit &&
                                    !always_a_pointer(w, o->kname, param, offset),
                          .op = ACC_KERNEL, .param = (int32_t)param,
                          .kernel = o->kname < 0 ? 0 : o->kname,
                          .offset = (int32_t)offset};
    if (k->fp)
      fp_access(w, k->fp, param, offset, value, a);
    else
      access(w, &a);
  }
  if (k->fp && k->fp->nind)
    fp_indirect_access(w, k->fp,
                       (struct hb_access){.seq = seq, .stack = stack,
                                          .stream = s, .epoch = epoch,
                                          .op = ACC_KERNEL,
                                          .kernel = o->kname < 0 ? 0 : o->kname});
}

/* the kernel of graph node X (index I of the launch SEQ on S) touches its
 * pointer arguments, as do_kernel */
static void node_kernel(struct walk *w, const struct gnode *x, uint32_t i,
                        struct hb_access proto)
{
  const struct kname *k = kname_of(w, x->name, x->mangled);
  for (size_t a = 0; a < x->nargs; a++) {
    int64_t param = x->args[a].param, offset = x->args[a].offset;
    bool ro = k->n >= 0 && param >= 0 && param < k->n && offset == 0 &&
              k->cls[param] == PARAM_PTR_CONST;
    struct hb_access acc = proto;
    acc.lo = acc.hi = x->args[a].value;
    acc.point = 1;
    acc.write = !ro;
    acc.definite = ro;
    acc.untyped = k->untyped;
    acc.op = ACC_KERNEL;
    acc.param = (int32_t)param;
    acc.kernel = x->name < 0 ? 0 : x->name;
    acc.offset = (int32_t)offset;
    acc.uninit = x->args[a].uninit &&
                 !always_a_pointer(w, x->name, param, offset);
    (void)i;
    if (k->fp)
      fp_access(w, k->fp, param, offset, x->args[a].value, acc);
    else
      access(w, &acc);
  }
  if (k->fp && k->fp->nind) {
    struct hb_access acc = proto;
    acc.op = ACC_KERNEL;
    acc.kernel = x->name < 0 ? 0 : x->name;
    fp_indirect_access(w, k->fp, acc);
  }
}

/* A graph launch on stream S: its nodes, each on its lane (a chain of the
 * graph, graphs.h),
 * ordered after the launch point, after their predecessors and before S's
 * later work (ops.def GRAPH_EDGES, GRAPH_COMPLETION), and after the
 * executable graph's earlier launches (GRAPH_EXEC_ORDER).  Without a
 * recorded structure the launch is one operation of S. */
static void do_graph_launch(struct walk *w, const struct replay_op *o,
                            uint32_t t, uint32_t s)
{
  const struct gsnap *g = graphs_launched(&w->graphs, o->seq);
  if (!g || !g->n) {
    hb_issue(w->e, t, s);
    return;
  }
  uint64_t li;
  if (!u64map_get(&w->exec_lanes, g->exec, &li)) {
    GROW(w->lanes, w->caplanes, w->nlanes + 1);
    memset(&w->lanes[w->nlanes], 0, sizeof w->lanes[0]);
    li = w->nlanes++;
    u64map_put(&w->exec_lanes, g->exec, li);
  }
  struct lanes *L = &w->lanes[li];
  if (L->n < g->nlanes) {
    L->v = xrealloc(L->v, g->nlanes * sizeof *L->v);
    for (size_t i = L->n; i < g->nlanes; i++)
      L->v[i] = hb_new_stream(w->e, o->device, 0);
    L->n = g->nlanes;
    if (w->nstream_desc < hb_nstreams(w->e)) {
      size_t n = hb_nstreams(w->e);
      GROW(w->stream_desc, w->capstream_desc, n);
      w->stream_created = xrealloc(w->stream_created,
                                   w->capstream_desc * sizeof *w->stream_created);
      for (size_t i = w->nstream_desc; i < n; i++) {
        w->stream_desc[i] = NULL;
        w->stream_created[i] = -1;
      }
      w->nstream_desc = n;
      if (w->ncapture < n) {
        w->capture = xrealloc(w->capture, n * sizeof *w->capture);
        memset(w->capture + w->ncapture, 0,
               (n - w->ncapture) * sizeof *w->capture);
        w->ncapture = n;
      }
    }
  }
  for (size_t i = 0; i < L->n; i++)
    hb_stream_join(w->e, s, L->v[i]); /* the earlier launches */
  hb_issue(w->e, t, s);
  uint32_t preds[64];
  for (size_t k = 0; k < g->norder; k++) {
    uint32_t i = g->order[k];
    const struct gnode *x = &g->nodes[i];
    uint32_t lane = L->v[g->lane[i]];
    size_t np = 0;
    uint32_t epoch = 0;
    if (x->npreds <= 64) {
      for (size_t p = 0; p < x->npreds; p++)
        preds[np++] = L->v[g->lane[x->preds[p]]];
      epoch = hb_lane_issue(w->e, lane, s, preds, np);
    } else { /* many predecessors: joined one by one */
      for (size_t p = 0; p < x->npreds; p++)
        hb_stream_join(w->e, lane, L->v[g->lane[x->preds[p]]]);
      epoch = hb_lane_issue(w->e, lane, s, NULL, 0);
    }
    struct hb_access a = {.seq = o->seq, .stack = o->stack, .stream = lane,
                          .epoch = epoch, .definite = 1, .param = -1,
                          .origin = x->added > 0 ? x->added : 0,
                          .gnode = i + 1, .base = s};
    switch (x->type) {
    case CL_GNODE_KERNEL:
      node_kernel(w, x, i, a);
      break;
    case CL_GNODE_MEMCPY:
      if (x->src && x->bytes) {
        a.lo = x->src, a.hi = x->src + x->bytes, a.op = ACC_COPY_SRC;
        access(w, &a);
      }
      if (x->dst && x->bytes) {
        a.lo = x->dst, a.hi = x->dst + x->bytes, a.op = ACC_COPY_DST;
        a.write = 1;
        access(w, &a);
      }
      break;
    case CL_GNODE_MEMSET:
      if (x->dst && x->bytes) {
        a.lo = x->dst, a.hi = x->dst + x->bytes, a.op = ACC_MEMSET;
        a.write = 1;
        access(w, &a);
      }
      break;
    case CL_GNODE_EVENT_RECORD:
      u64map_put(&w->capture_events, x->event, 0);
      hb_event_record(w->e, x->event, lane);
      break;
    case CL_GNODE_WAIT_EVENT:
      hb_stream_wait_event(w->e, lane, x->event);
      break;
    default:
      break;
    }
  }
  for (size_t i = 0; i < L->n; i++)
    hb_stream_join(w->e, s, L->v[i]); /* later work waits for every node */
}

/* the collectives' buffers (schema 4), read alongside the calls */
struct coll_cursor {
  struct db_cursor *c;
  struct coll_buffers b;
  bool row;
};

static void do_collective(struct walk *w, struct coll_cursor *cc,
                          const struct replay_op *o, uint32_t t, uint32_t s)
{
  uint32_t epoch = hb_issue(w->e, t, s);
  while (cc->row && cc->b.seq < o->seq)
    cc->row = coll_buffers_next(cc->c, &cc->b);
  if (!cc->row || cc->b.seq != o->seq)
    return;
  struct hb_access a = {.seq = o->seq, .stack = o->stack, .stream = s,
                        .epoch = epoch, .definite = 1, .param = -1};
  for (int side = 0; side < 2; side++) {
    uint64_t addr = side ? cc->b.write_addr : cc->b.read_addr;
    int64_t bytes = side ? cc->b.write_bytes : cc->b.read_bytes;
    if (!addr || bytes <= 0)
      continue;
    a.lo = addr;
    a.hi = addr + (uint64_t)bytes;
    a.write = (uint8_t)side;
    a.op = side ? ACC_COLL_RECV : ACC_COLL_SEND;
    access(w, &a);
  }
}

static enum hb_edge edge_of(const struct cl_op_sem *sem)
{
  return sem->edge == CL_EDGE_UNPROMISED ? HB_EDGE_UNPROMISED : HB_EDGE_ALWAYS;
}

/* host-thread edges (thread_edges, schema 2) with seq below SEQ */
static void thread_edges_upto(struct walk *w, struct db_cursor *te,
                              struct thread_edge *e, bool *row, int64_t seq)
{
  for (; *row && e->seq < seq; *row = thread_edges_next(te, e)) {
    uint32_t a = thread_of(w, e->tid), b = thread_of(w, e->other);
    if (e->kind == TE_CREATE)
      hb_thread_join(w->e, b, a); /* the new thread knows what its creator did */
    else if (e->kind == TE_JOIN)
      hb_thread_join(w->e, a, b); /* the joiner knows what the joined did */
  }
}

/* Host functions (host_func_runs, schema 4): when one runs, its thread
 * learns that the work its stream had when it was enqueued is finished
 * ([API] cudaLaunchHostFunc; ops.def HOST_FUNC), as if it had waited for
 * an event recorded there (hostfn_key).  That thread may hand the news to
 * any other (XLA returns a staging buffer to its pool from one): a pair
 * then ordered only through that handoff is a thread-handoff-race, never a
 * stream-race.  A run is applied at the later of its own seq and its
 * enqueueing call's (it may run before the call returns, and is recorded
 * before the call's row). */
struct hostfn_run {
  int64_t at;      /* max(run seq, call seq) */
  int64_t call;    /* the enqueueing call's seq */
  int64_t tid;
};
struct hostfn_runs {
  struct hostfn_run *v;
  size_t n, cap, next;
};

static uint64_t hostfn_key(int64_t call_seq)
{
  return (1ull << 63) | (uint64_t)call_seq; /* never an event handle */
}

static int run_cmp(const void *a, const void *b)
{
  const struct hostfn_run *x = a, *y = b;
  return x->at < y->at ? -1 : x->at > y->at ? 1 : 0;
}

static void hostfn_runs_load(struct cl_db *d, struct hostfn_runs *hr)
{
  memset(hr, 0, sizeof *hr);
  size_t n;
  struct host_func_run *runs = host_func_runs_read(d, &n);
  for (size_t i = 0; i < n; i++) {
    GROW(hr->v, hr->cap, hr->n + 1);
    int64_t run = runs[i].run, call = runs[i].call;
    hr->v[hr->n++] = (struct hostfn_run){run > call ? run : call, call,
                                         runs[i].tid};
  }
  free(runs);
  if (hr->n) /* qsort wants an array */
    qsort(hr->v, hr->n, sizeof *hr->v, run_cmp);
}

/* the runs to apply before the call of seq SEQ */
static void hostfn_runs_upto(struct walk *w, struct hostfn_runs *hr,
                             int64_t seq)
{
  for (; hr->next < hr->n && hr->v[hr->next].at < seq; hr->next++) {
    const struct hostfn_run *run = &hr->v[hr->next];
    uint32_t t = thread_of(w, run->tid);
    hb_host_wait_event(w->e, t, hostfn_key(run->call));
    size_t k = 0;
    while (k < w->nhostfn_threads && w->hostfn_threads[k].thread != t)
      k++;
    if (k == w->nhostfn_threads) {
      GROW(w->hostfn_threads, w->caphostfn_threads, k + 1);
      w->nhostfn_threads++;
    }
    w->hostfn_threads[k] = (struct hostfn_thread){t, run->call, run->tid};
  }
}

static void walk(struct walk *w)
{
  struct cl_db *d = w->ctx->db;
  struct db_cursor *te = thread_edges_open(d);
  struct thread_edge edge;
  bool te_row = thread_edges_next(te, &edge);
  struct coll_cursor cc = {coll_buffers_open(d), {0}, false};
  cc.row = coll_buffers_next(cc.c, &cc.b);
  struct hostfn_runs hr;
  hostfn_runs_load(d, &hr);
  struct replay r;
  replay_begin(&r, w->ctx->db, w->ctx->act);
  w->mm = &r.mm;
  while (replay_next(&r)) {
    const struct replay_op *o = &r.op;
    int64_t seq = o->seq;
    int op = o->op;
    if (op < 0 && !o->api)
      continue; /* a call of an API the recording does not describe */
    const char *api = o->api;
    int64_t tid = o->tid;
    int64_t device = o->device;
    int64_t stack = o->stack;
    bool ok = o->result == 0 ||
              (op == CL_OP_COLLECTIVE && o->result == CL_NCCL_IN_PROGRESS);
    thread_edges_upto(w, te, &edge, &te_row, seq);
    hostfn_runs_upto(w, &hr, seq);

    uint32_t t = thread_of(w, tid);
    bool has_stream = o->has_stream;
    int64_t handle = o->stream;
    uint32_t s = 0;
    const struct cl_op_sem *sem = cl_op_sem((enum cl_op)op);
    bool stream_op = cl_op_is_stream_work((enum cl_op)op, o->mem_has_stream);
    if (stream_op || sem->host == CL_HOST_STREAM)
      s = hb_stream_of(w, has_stream, handle, device, seq, api, tid);
    bool captured = (stream_op || sem->host == CL_HOST_STREAM) &&
                    w->capture[s] != 0;

    if (!ok) {
      /* failed calls did nothing */
    } else if (op == CL_OP_CAPTURE_BEGIN) {
      w->capture[s] = (uint64_t)s + 1;
    } else if (op == CL_OP_CAPTURE_END) {
      uint64_t id = w->capture[s];
      for (size_t i = 0; id && i < w->ncapture; i++)
        if (w->capture[i] == id)
          w->capture[i] = 0;
    } else if (op == CL_OP_EVENT_RECORD) {
      uint64_t ev = o->record_event;
      if (captured) {
        u64map_put(&w->capture_events, ev, w->capture[s]);
      } else {
        u64map_put(&w->capture_events, ev, 0);
        hb_issue(w->e, t, s);
        hb_event_record(w->e, ev, s);
      }
    } else if (op == CL_OP_STREAM_WAIT_EVENT) {
      uint64_t ev = o->wait_event, cap = 0;
      if (u64map_get(&w->capture_events, ev, &cap) && cap) {
        w->capture[s] = cap; /* joins the capture */
      } else if (!captured) {
        hb_issue(w->e, t, s);
        hb_stream_wait_event(w->e, s, ev);
      }
    } else if (op == CL_OP_EVENT_CREATE) {
      if (o->has_event)
        hb_event_reset(w->e, o->event);
    } else if (captured) {
      /* recorded into a graph, not run now */
    } else if (op == CL_OP_KERNEL) {
      do_kernel(w, o, t, s);
    } else if (op == CL_OP_COLLECTIVE) {
      do_collective(w, &cc, o, t, s);
    } else if (op == CL_OP_COPY || op == CL_OP_MEMSET) {
      if (o->transfer)
        do_copy(w, &r, t, s);
    } else if (op == CL_OP_GRAPH_LAUNCH) {
      do_graph_launch(w, o, t, s);
    } else if (op == CL_OP_HOST_FUNC) {
      hb_issue(w->e, t, s);
      hb_event_record(w->e, hostfn_key(seq), s); /* what its run learns */
    } else if (op == CL_OP_PREFETCH) {
      hb_issue(w->e, t, s);
    } else if (op == CL_OP_ALLOC && o->mem) {
      count_alloc(w, o);
      uint64_t addr = o->mem_addr;
      uint64_t size = o->mem_size < 0 ? 0 : (uint64_t)o->mem_size;
      hb_bucket_drop(w->e, addr); /* a new block: fresh history */
      if (o->mem_has_stream && size) {
        memmodel_advance(w->mm, seq);
        uint32_t epoch = hb_issue(w->e, t, s);
        struct hb_access a = {.seq = seq, .stack = stack, .stream = s,
                              .epoch = epoch, .lo = addr, .hi = addr + size,
                              .write = 1, .definite = 1, .op = ACC_ALLOC,
                              .param = -1};
        access(w, &a);
      }
    } else if (op == CL_OP_FREE && o->mem) {
      uint64_t addr = o->mem_addr;
      if (o->mem_has_stream) {
        const struct alloc *al = memmodel_find(w->mm, addr);
        uint64_t size = al ? al->size : (uint64_t)o->mem_size;
        uint32_t epoch = hb_issue(w->e, t, s);
        if (size) {
          struct hb_access a = {.seq = seq, .stack = stack, .stream = s,
                                .epoch = epoch, .lo = addr, .hi = addr + size,
                                .write = 1, .definite = 1, .op = ACC_FREE,
                                .param = -1};
          access(w, &a);
        }
      } else {
        /* cudaFree / cudaFreeHost: synchronize in practice (ops.def) */
        hb_host_wait_device(w->e, t, device, edge_of(sem));
        hb_bucket_drop(w->e, addr);
        /* cuMemUnmap: every mapping in its range */
        for (const struct alloc *al = memmodel_find(w->mm, addr);
             o->mem_kind == CL_MEMKIND_MAPPED && al &&
             al->kind == CL_MEMKIND_MAPPED && o->mem_size > 0 &&
             al->address + al->size < addr + (uint64_t)o->mem_size;) {
          uint64_t next = al->address + al->size;
          hb_bucket_drop(w->e, next);
          al = memmodel_find(w->mm, next);
        }
      }
    } else if (sem->host == CL_HOST_DEVICE) {
      hb_host_wait_device(w->e, t, device, edge_of(sem));
    } else if (sem->host == CL_HOST_STREAM) {
      if (o->complete)
        hb_host_wait_stream(w->e, t, s, edge_of(sem));
    } else if (sem->host == CL_HOST_EVENT) {
      if (o->complete && o->has_sync_event)
        hb_host_wait_event(w->e, t, o->sync_event);
    }
  }
  replay_end(&r);
  w->mm = NULL;
  db_cursor_close(te);
  db_cursor_close(cc.c);
  free(hr.v);
}

/* ---- findings ------------------------------------------------------------- */

/* The library that created hb stream S, NULL when the program (or a
 * framework, or nothing recorded) did. */
static const char *stream_library(struct walk *w, uint32_t s)
{
  if (s >= w->nstream_desc || w->stream_created[s] < 0)
    return NULL;
  int64_t stack, pystack;
  call_stacks(w->ctx->db, w->stream_created[s], &stack, &pystack);
  return callsite_issuing_library(w->ctx->cs, stack);
}

/* Both accesses were issued by code inside NVIDIA's libraries (cuDNN,
 * cuBLAS...), and one ran on a stream such a library created for itself:
 * the program neither made the calls nor owns the stream, so it cannot
 * order them (a library that orders its work by means the documentation
 * does not promise, or by time).  Streams the program made and handed to
 * a library (cublasSetStream, cudnnSetStream) do not qualify: there the
 * program's own ordering is missing. */
static bool library_internal(struct walk *w, const struct race *r)
{
  if (!callsite_issuing_library(w->ctx->cs, r->prev.stack) ||
      !callsite_issuing_library(w->ctx->cs, r->cur.stack))
    return false;
  return stream_library(w, r->prev.stream) || stream_library(w, r->cur.stream);
}

struct opinfo {
  char *what;   /* "kernel saxpy(float*, ...) (argument 1, float*)",
                   "cudaMemcpyAsync htod of 4 KiB (destination side)" */
  char *brief;  /* the same for a finding's first line: "kernel saxpy
                   (argument 1, float*)", "cudaMemcpyAsync (destination)" */
  char *kernel; /* the kernel's demangled name, NULL for other work */
  int64_t stack;
};

static void opinfo_load(struct walk *w, int64_t seq,
                        const struct hb_access *a, struct opinfo *out)
{
  struct call_info q;
  out->what = NULL;
  out->brief = NULL;
  out->kernel = NULL;
  out->stack = -1;
  if (!call_info(w->ctx->db, seq, &q)) {
    out->what = xstrdup("(unknown call)");
    out->brief = xstrdup("(unknown call)");
    return;
  }
  char api[128], b1[32];
  out->stack = q.stack;
  callsite_user_api(w->ctx->cs, out->stack, q.api, api, sizeof api);
  switch (a->op) {
  case ACC_KERNEL: {
    const char *name =
        q.kname >= 0 ? names_kernel(w->ctx->db, q.kname).demangled : NULL;
    char *dn = name ? xstrdup(name) : NULL;
    char *k = cl_kernel_brief(dn);
    char *arg = a->indirect
                    ? xstrdup("through a pointer it read from memory")
                    : cl_kernel_argument(dn, (int)a->param);
    out->what = xasprintf("kernel %s (%s)", dn ? dn : "(unnamed)", arg);
    out->brief = xasprintf("kernel %s (%s)", k, arg);
    free(arg);
    free(k);
    out->kernel = dn;
    break;
  }
  case ACC_COPY_SRC:
  case ACC_COPY_DST: {
    const char *side = a->op == ACC_COPY_SRC ? "source" : "destination";
    out->what = xasprintf("%s %s of %s (%s side)", api,
                          q.direction ? q.direction : "copy",
                          fmt_bytes(b1, sizeof b1, q.bytes), side);
    out->brief = xasprintf("%s (%s)", api, side);
    break;
  }
  case ACC_MEMSET:
    out->what = xasprintf("%s of %s", api, fmt_bytes(b1, sizeof b1, q.bytes));
    out->brief = xstrdup(api);
    break;
  case ACC_COLL_SEND:
  case ACC_COLL_RECV: {
    const char *side = a->op == ACC_COLL_SEND ? "send buffer" : "receive buffer";
    out->what = xasprintf("%s of %s (%s)", api,
                          fmt_bytes(b1, sizeof b1, (int64_t)(a->hi - a->lo)),
                          side);
    out->brief = xasprintf("%s (%s)", api, side);
    break;
  }
  case ACC_ALLOC:
    out->what = xasprintf("%s (the block's allocation)", api);
    out->brief = xasprintf("%s (allocation)", api);
    break;
  default:
    out->what = xasprintf("%s (the block's release)", api);
    out->brief = xasprintf("%s (release)", api);
    break;
  }
}

/* A graph node's access: OUT (loaded for the launch call) describes the
 * node instead, naming the node, what it does and the call that added or
 * captured it; the launch stays in the text. */
/* BUF: the API of call SEQ as the program called it (callsite_user_api);
 * left as it is when the call is not recorded */
static void call_user_api(struct walk *w, int64_t seq, char *buf, size_t len)
{
  struct call_info q;
  if (call_info(w->ctx->db, seq, &q))
    callsite_user_api(w->ctx->cs, q.stack, q.api, buf, len);
}

static void opinfo_graph(struct walk *w, const struct hb_access *a,
                         struct opinfo *out)
{
  char addapi[128] = "", b1[32];
  if (a->origin > 0)
    call_user_api(w, a->origin, addapi, sizeof addapi);
  /* when and where it was added: the finding's note of the node */
  char *node = a->origin > 0
                   ? xasprintf("graph node %u (added by %s)", a->gnode - 1,
                               addapi)
                   : xasprintf("graph node %u", a->gnode - 1);
  char *what = NULL, *brief = NULL;
  switch (a->op) {
  case ACC_KERNEL: {
    const char *name = names_kernel(w->ctx->db, a->kernel).demangled;
    char *dn = name ? xstrdup(name) : NULL;
    char *k = cl_kernel_brief(dn);
    char *arg = cl_kernel_argument(dn, (int)a->param);
    what = xasprintf("kernel %s (%s), %s", dn ? dn : "(unnamed)", arg, node);
    brief = xasprintf("graph kernel %s (%s)", k, arg);
    free(arg);
    free(k);
    free(out->kernel);
    out->kernel = dn;
    break;
  }
  case ACC_COPY_SRC:
  case ACC_COPY_DST: {
    const char *side = a->op == ACC_COPY_SRC ? "source" : "destination";
    what = xasprintf("memcpy of %s (%s side), %s",
                     fmt_bytes(b1, sizeof b1, (int64_t)(a->hi - a->lo)), side,
                     node);
    brief = xasprintf("graph memcpy (%s)", side);
    break;
  }
  default:
    what = xasprintf("memset of %s, %s",
                     fmt_bytes(b1, sizeof b1, (int64_t)(a->hi - a->lo)), node);
    brief = xstrdup("graph memset");
    break;
  }
  char launch[128] = "cudaGraphLaunch";
  call_user_api(w, a->seq, launch, sizeof launch);
  char *full = xasprintf("%s, in the graph launched by %s", what, launch);
  free(what);
  free(node);
  free(out->what);
  free(out->brief);
  out->what = full;
  out->brief = brief;
}

static const char *verb(const struct hb_access *a, bool past)
{
  if (a->op == ACC_ALLOC)
    return past ? "allocated" : "allocates";
  if (a->op == ACC_FREE)
    return past ? "freed" : "frees";
  if (!a->write)
    return past ? "read" : "reads";
  if (!a->definite)
    return past ? "read or wrote" : "reads or writes";
  return past ? "wrote" : "writes";
}

/* a stream of the engine, as the report names it */
static const char *stream_name(const struct walk *w, uint32_t id)
{
  if (id < w->nstream_desc && w->stream_desc[id])
    return w->stream_desc[id];
  return "the host (before the call returned)";
}

/* When call SEQ was made, as the notes say it: " (35.21 ms into the run)",
 * the time since the recording started (meta start_ns: the shim's load,
 * about the process's start; else the first call), or "" when unknown.
 * A person finds that on a timeline; the call's number (the recording's
 * seq) is in the JSON report (first_seq, second_seq). */
static const char *when_text(struct walk *w, int64_t seq, char *buf,
                             size_t len)
{
  char b[32];
  buf[0] = 0;
  int64_t t = call_time_into_run(w->ctx->db, seq);
  if (t >= 0)
    snprintf(buf, len, " (%s into the run)", fmt_ns(b, sizeof b, t));
  return buf;
}

static void emit(struct walk *w, const struct race *r, struct findings *out)
{
  struct opinfo p, c;
  opinfo_load(w, r->prev.seq, &r->prev, &p);
  opinfo_load(w, r->cur.seq, &r->cur, &c);
  if (r->prev.gnode)
    opinfo_graph(w, &r->prev, &p);
  if (r->cur.gnode)
    opinfo_graph(w, &r->cur, &c);
  /* a graph node runs on the stream its graph was launched on */
  const char *ps = stream_name(w, r->prev.gnode ? r->prev.base : r->prev.stream);
  const char *cs = stream_name(w, r->cur.gnode ? r->cur.base : r->cur.stream);
  char psb[96], csb[96];
  stream_brief(psb, sizeof psb, ps);
  stream_brief(csb, sizeof csb, cs);
  char mem[96], b1[32], b2[32];
  /* mapped memory (cuMemMap) is device memory */
  const char *memkind =
      r->alloc_seq < 0 ? "host"
      : r->alloc_kind == CL_MEMKIND_MAPPED
          ? "device"
          : cl_memkind_name((enum cl_memkind)r->alloc_kind);
  snprintf(mem, sizeof mem, "%s memory", memkind);

  /* two nodes of one launch: the graph lacks an edge, so the finding is
   * where the later node was added or captured; else at the later call */
  bool same_launch = r->prev.gnode && r->cur.gnode && r->prev.seq == r->cur.seq;
  struct callsite site;
  callsite_resolve_call(w->ctx->cs,
                        same_launch && r->cur.origin > 0 ? r->cur.origin
                                                         : r->cur.seq,
                        &site); /* Python too */
  struct location loc = callsite_location(&site);
  struct finding *f;
  enum check_id check = race_checks[r->kind];
  const char *fix =
      "record an event after the first (cudaEventRecord on its stream) and"
      " make the second stream wait for it (cudaStreamWaitEvent) before"
      " issuing the second; in PyTorch, second_stream.wait_stream("
      "first_stream), and tensor.record_stream(second_stream) for memory the"
      " second stream uses after the first frees it";
  /* "<later> on <stream> reads <memory> that <earlier> on <stream> wrote":
   * the operations named briefly; the notes give them in full, and
   * --explain why the pair is a finding */
  char *pair = xasprintf("%s on %s %s %s that %s on %s %s", c.brief, csb,
                         verb(&r->cur, false), mem, p.brief, psb,
                         verb(&r->prev, true));
  const char *slib = NULL;
  uint32_t own = 0;
  const char *implicit_why = NULL; /* masked-race: what orders the pair */
  bool coll = r->prev.op >= ACC_COLL_SEND || r->cur.op >= ACC_COLL_SEND;
  switch (r->kind) {
  case RK_STREAM:
    f = findings_add(out, check, &loc, "%s, and nothing orders them", pair);
    if (coll)
      fix = "make the stream that uses the buffer wait for the NCCL"
            " operation (cudaEventRecord on its stream after it,"
            " cudaStreamWaitEvent before the use); in PyTorch, work.wait()"
            " on the work an async_op=True collective returned before"
            " touching its tensors, and keep memory a collective uses alive"
            " until then";
    break;
  case RK_HANDOFF:
    if (r->hostfn_call)
      f = findings_add(out, check, &loc,
                       "%s, ordered only by a handoff cudalens cannot see"
                       " from the thread that ran a host function after"
                       " the first finished", pair);
    else
      f = findings_add(out, check, &loc,
                       "%s, from two host threads ordered only by a handoff"
                       " cudalens cannot see", pair);
    fix = "make the order visible to CUDA: cudaEventRecord after the first"
          " and cudaStreamWaitEvent on the second stream before the second";
    break;
  case RK_LIBRARY: {
    const char *lib = callsite_issuing_library(w->ctx->cs, r->prev.stack);
    slib = stream_library(w, r->prev.stream);
    own = slib ? r->prev.stream : r->cur.stream;
    if (!slib)
      slib = stream_library(w, own);
    f = findings_add(out, check, &loc,
                     "%s, both inside %s, and nothing orders them", pair,
                     lib);
    fix = "nothing to change in the program; if it matters, report it to the"
          " library's maintainers with this finding, or update the library";
    break;
  }
  case RK_STALE_ARG:
    f = findings_add(out, check, &loc,
                     "%s, and nothing orders them; but the kernel's argument"
                     " is a structure passed by value that may not be fully"
                     " initialized (it held an address in host code, or this"
                     " word is past its 16th pointer), and the pointer may be"
                     " a stale word of it",
                     pair);
    fix = "if the kernel uses this pointer, order the two as for a"
          " stream-race (cudaEventRecord and cudaStreamWaitEvent; in"
          " PyTorch, wait_stream / record_stream); if it does not, nothing"
          " to change (initializing the whole structure, e.g. with {}, lets"
          " cudalens tell)";
    break;
  case RK_INDIRECT:
    f = findings_add(out, check, &loc,
                     "%s, and nothing orders them; the kernel reached the"
                     " memory through a pointer it read from memory, placed"
                     " by its footprint from a separate run", pair);
    finding_add_detail(f, NULL, "the footprint's allocation is taken to be"
                       " the one made in the same order among those of its"
                       " size (%s) in this run: a race if the program"
                       " allocates the same way in both runs",
                       fmt_bytes(b2, sizeof b2, (int64_t)r->alloc_size));
    break;
  case RK_SHARED_ARG:
    f = findings_add(out, check, &loc,
                     "%s on %s and %s on %s get the same pointer in a"
                     " %s parameter, and nothing orders them",
                     c.brief, csb, p.brief, psb,
                     r->cur.untyped || r->prev.untyped
                         ? "non-const or untyped (no C++ signature)"
                         : "non-const");
    break;
  case RK_STAGED:
    f = findings_add(out, check, &loc,
                     "%s; a pageable copy's DMA may still be in flight",
                     pair);
    fix = "synchronize the copy's stream (cudaStreamSynchronize) or record"
          " an event after the copy and make this stream wait for it"
          " (cudaStreamWaitEvent); or copy from pinned memory, which"
          " completes before cudaMemcpy returns";
    break;
  default: {
    const char *why =
        r->implicit == HB_EDGE_UNPROMISED
            ? "a synchronization CUDA does not promise"
        : r->implicit == HB_EDGE_LEGACY
            ? "the legacy default stream"
            : "implicit synchronization";
    f = findings_add(out, check, &loc, "%s; ordered only by %s", pair, why);
    implicit_why =
        r->implicit == HB_EDGE_UNPROMISED
            ? "a cudaMemcpyAsync to pageable memory that blocked the host"
              " (the documentation says it \"might be synchronous\"), or a"
              " cudaFree, which synchronizes in practice; with pinned memory,"
              " or without the free, these two race"
        : r->implicit == HB_EDGE_LEGACY
            ? "the legacy default stream synchronizes with blocking streams;"
              " with cudaStreamNonBlocking streams or --default-stream"
              " per-thread these two race"
            : "the legacy default stream, and a copy or free that"
              " synchronizes in practice; with pinned memory and non-blocking"
              " streams these two race";
    fix = "make the order explicit: cudaEventRecord after the first and"
          " cudaStreamWaitEvent before the second (PyTorch: wait_stream /"
          " record_stream), or synchronize the first stream";
    break;
  }
  }
  finding_set_fix(f, "%s", fix);
  free(pair);
  f->count = r->count;
  finding_set_flag(f, "definite", r->definite);
  finding_set_extra(f, "first_seq", r->prev.seq);
  finding_set_extra(f, "second_seq", r->cur.seq);
  finding_add_op(f, r->prev.seq);
  finding_add_op(f, r->cur.seq);
  if (r->kind == RK_MASKED || r->kind == RK_STAGED)
    finding_set_extra(f, "implicit", r->implicit);

  /* the later access in full, where the finding is */
  char t1[64];
  finding_add_detail(f, &loc, "this access: %s on %s %s %s at %s%s", c.what,
                     cs, verb(&r->cur, false), mem,
                     fmt_hex(b1, sizeof b1, (int64_t)r->cur.lo),
                     when_text(w, r->cur.seq, t1, sizeof t1));
  struct callsite psite;
  callsite_resolve_call(w->ctx->cs, r->prev.seq, &psite);
  struct location ploc = callsite_location(&psite);
  finding_add_related(f, &ploc, "earlier access: %s on %s %s it%s", p.what, ps,
                      verb(&r->prev, true),
                      when_text(w, r->prev.seq, t1, sizeof t1));
  for (int k = 0; k < 2; k++) {
    const struct hb_access *a = k ? &r->prev : &r->cur;
    if (!a->gnode)
      continue;
    struct callsite gsite;
    struct location gloc;
    if (!(same_launch && k)) {
      callsite_resolve_call(w->ctx->cs, a->seq, &gsite);
      gloc = callsite_location(&gsite);
      finding_add_related(f, &gloc, "the graph launch%s",
                          when_text(w, a->seq, t1, sizeof t1));
    }
    if (a->origin > 0) {
      callsite_resolve_call(w->ctx->cs, a->origin, &gsite);
      gloc = callsite_location(&gsite);
      finding_add_related(f, &gloc, "graph node %u was added or captured here%s",
                          a->gnode - 1, when_text(w, a->origin, t1, sizeof t1));
    }
  }
  /* what a footprint decided: from another run, per kernel function */
  for (int k = 0; k < 2; k++) {
    const struct hb_access *a = k ? &r->prev : &r->cur;
    if (!a->footprint || (k && r->cur.footprint && a->kernel == r->cur.kernel))
      continue;
    struct kernel_name kn = names_kernel(w->ctx->db, a->kernel);
    const struct fp_kernel *fk = footprints_kernel(w->ctx->fp, kn.mangled);
    if (!fk)
      continue;
    finding_set_flag(f, "footprint", 1);
    finding_add_detail(f, NULL, "%s: footprint sampled in a separate run:"
                       " %" PRId64 " of %" PRId64 " launches instrumented"
                       " (cudalens run --footprint; it applies to every"
                       " launch of the kernel function)%s",
                       kn.demangled ? kn.demangled : kn.mangled,
                       fk->instrumented, fk->launches,
                       fk->unattributed && !fk->nind
                           ? "; it also accessed memory through pointers it"
                             " read from memory, which this report cannot"
                             " place"
                           : "");
  }
  if (same_launch) {
    finding_add_detail(f, NULL, "two nodes of one graph with no path of edges"
                       " between them may run at the same time, in any order"
                       " (CUDA Programming Guide, CUDA Graphs)");
    finding_set_fix(f, "make one node depend on the other: pass it in the"
                    " dependencies of cudaGraphAdd*Node, or"
                    " cudaGraphAddDependencies; when the graph is captured,"
                    " issue both on one stream, or join them with"
                    " cudaEventRecord and cudaStreamWaitEvent inside the"
                    " capture");
  }
  if (r->alloc_seq >= 0 && r->alloc_kind == CL_MEMKIND_MAPPED) {
    /* where it was mapped, and the range it was mapped into */
    struct callsite asite;
    callsite_resolve_call(w->ctx->cs, r->alloc_seq, &asite);
    struct location aloc = callsite_location(&asite);
    finding_add_related(f, &aloc, "the memory: device memory mapped here"
                        " (cuMemMap), %s at %s%s",
                        fmt_bytes(b2, sizeof b2, (int64_t)r->alloc_size),
                        fmt_hex(b1, sizeof b1, (int64_t)r->alloc_addr),
                        when_text(w, r->alloc_seq, t1, sizeof t1));
    if (r->res_seq >= 0) {
      callsite_resolve_call(w->ctx->cs, r->res_seq, &asite);
      aloc = callsite_location(&asite);
      finding_add_related(f, &aloc, "in the address range reserved here"
                          " (cuMemAddressReserve), %s at %s%s",
                          fmt_bytes(b2, sizeof b2, (int64_t)r->res_size),
                          fmt_hex(b1, sizeof b1, (int64_t)r->res_addr),
                          when_text(w, r->res_seq, t1, sizeof t1));
    }
  } else if (r->alloc_seq >= 0) {
    struct callsite asite;
    callsite_resolve_call(w->ctx->cs, r->alloc_seq, &asite);
    struct location aloc = callsite_location(&asite);
    finding_add_related(f, &aloc, "the memory: %s allocation of %s at %s%s",
                        cl_memkind_name((enum cl_memkind)r->alloc_kind),
                        fmt_bytes(b2, sizeof b2, (int64_t)r->alloc_size),
                        fmt_hex(b1, sizeof b1, (int64_t)r->alloc_addr),
                        when_text(w, r->alloc_seq, t1, sizeof t1));
  }
  if (implicit_why)
    finding_add_detail(f, NULL, "%s", implicit_why);
  if (r->kind == RK_HANDOFF && r->hostfn_call) {
    struct callsite hsite;
    callsite_resolve_call(w->ctx->cs, r->hostfn_call, &hsite);
    struct location hloc = callsite_location(&hsite);
    finding_add_related(f, &hloc,
                        "the host function enqueued here%s ran on thread %"
                        PRId64 " once the first access was done; the second"
                        " was issued after that thread told this one (a"
                        " mutex, condition variable or queue cudalens does"
                        " not record)",
                        when_text(w, r->hostfn_call, t1, sizeof t1),
                        r->hostfn_tid);
  }
  if (r->kind == RK_LIBRARY && slib)
    finding_add_detail(f, NULL, "%s is a stream %s created for itself%s: the"
                       " library's ordering, not the program's",
                       stream_name(w, own), slib,
                       when_text(w, w->stream_created[own], t1, sizeof t1));
  finding_add_kernel(f, c.kernel);
  finding_add_kernel(f, p.kernel);
  free(p.what);
  free(c.what);
  free(p.brief);
  free(c.brief);
  free(p.kernel);
  free(c.kernel);
}

void analysis_races(struct report_ctx *ctx, struct findings *out)
{
  struct walk w;
  memset(&w, 0, sizeof w);
  w.ctx = ctx;
  w.e = hb_new();
  streams_load(&w.streams, ctx->db);
  u64map_init(&w.stream_ids);
  u64map_init(&w.threads);
  u64map_init(&w.capture_events);
  u64map_init(&w.knames_idx);
  u64map_init(&w.launches);
  u64map_init(&w.fields);
  u64map_init(&w.race_idx);
  u64map_init(&w.exec_lanes);
  u64map_init(&w.size_count);
  u64map_init(&w.ordinal_idx);
  graphs_load(&w.graphs, ctx->db);

  fields_count(&w);
  walk(&w);

  /* races inside NVIDIA's libraries, on streams they made for themselves */
  for (size_t i = 0; i < w.nraces; i++) {
    struct race *r = &w.races[i];
    /* unordered, or ordered only by what CUDA does not promise */
    bool undocumented = r->kind == RK_STREAM ||
                        (r->kind == RK_MASKED && r->implicit == HB_EDGE_UNPROMISED);
    if (undocumented && library_internal(&w, r)) {
      r->kind = RK_LIBRARY;
      r->implicit = 0; /* one finding per pair of sites, ordered or not */
    }
  }
  /* merge groups whose stacks resolve to the same pair of call sites */
  struct u64map seen;
  u64map_init(&seen);
  for (size_t i = 0; i < w.nraces; i++) {
    struct race *r = &w.races[i];
    if (!r->count)
      continue;
    struct callsite a, b;
    if (r->prev.stack >= 0 && r->cur.stack >= 0 &&
        callsite_resolve_call(ctx->cs, r->prev.seq, &a) == 0 &&
        callsite_resolve_call(ctx->cs, r->cur.seq, &b) == 0) {
      uint64_t h = mix(0, (uint64_t)r->kind);
      h = mix(h, r->implicit);
      h = mix(h, a.address);
      h = mix(h, b.address);
      h = mix(h, (uint64_t)a.py_line); /* Python callers share native sites */
      h = mix(h, (uint64_t)b.py_line);
      h = mix(h, (uint64_t)r->prev.origin);
      h = mix(h, (uint64_t)r->cur.origin);
      uint64_t j;
      if (u64map_get(&seen, h, &j)) {
        w.races[j].count += r->count;
        w.races[j].definite &= r->definite;
        r->count = 0;
        continue;
      }
      u64map_put(&seen, h, i);
    }
  }
  for (size_t i = 0; i < w.nraces; i++)
    if (w.races[i].count)
      emit(&w, &w.races[i], out);
  u64map_free(&seen);

  for (size_t i = 0; i < w.nstream_desc; i++)
    free(w.stream_desc[i]);
  free(w.stream_desc);
  free(w.stream_created);
  free(w.capture);
  free(w.knames);
  free(w.races);
  free(w.hostfn_threads);
  u64map_free(&w.stream_ids);
  u64map_free(&w.size_count);
  u64map_free(&w.ordinal_idx);
  free(w.ordinals);
  u64map_free(&w.threads);
  u64map_free(&w.capture_events);
  u64map_free(&w.knames_idx);
  u64map_free(&w.launches);
  u64map_free(&w.fields);
  u64map_free(&w.race_idx);
  u64map_free(&w.exec_lanes);
  for (size_t i = 0; i < w.nlanes; i++)
    free(w.lanes[i].v);
  free(w.lanes);
  graphs_free(&w.graphs);
  streams_free(&w.streams);
  hb_free(w.e);
}

/* find_collectives.c - collective-mismatch (checks.def, find_collectives.h):
 * NCCL matches the N-th collective of each rank of a communicator with the
 * N-th of the others, so their sequences must agree: kind (ncclBcast and
 * ncclBroadcast are one), count, datatype, root, and the reduction when it
 * is one of NCCL's own (a ncclRedOpCreatePreMulSum handle is the rank's).
 * Each recording's successful collectives (schema 4: the collectives
 * table) are gathered with their call sites while it is open; then the
 * sequences of every communicator id (the same on every rank: shim/nccl.c)
 * are compared rank by rank, whichever recordings the ranks are in, and
 * the first position where they differ is one finding, at the call of the
 * rank that differs from the lowest rank with a call there (or at that
 * call, when the others have none), with a note for each rank.  A
 * communicator whose id is unknown (created before the shim saw NCCL),
 * point-to-point calls and ranks without a recording are left out. */
#include "checks/find_collectives.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checks/merge.h"
#include "cudalens/fnv.h"
#include "cudalens/format.h"
#include "model/collectives.h"
#include "u64map.h"
#include "util.h"

static void kind_text(char *buf, size_t len, int64_t datatype)
{
  static const char *const names[] = {
      "int8",    "uint8",   "int32",    "uint32",     "int64",     "uint64",
      "float16", "float32", "float64",  "bfloat16",   "float8e4m3", "float8e5m2"};
  if (datatype >= 0 && (size_t)datatype < sizeof names / sizeof *names)
    snprintf(buf, len, "%s", names[datatype]);
  else
    snprintf(buf, len, "datatype %" PRId64, datatype);
}

struct coll_log *collectives_gather(struct report_ctx *ctx)
{
  struct coll_log *l = xcalloc(1, sizeof *l);
  size_t n;
  struct coll_call *calls = coll_calls_read(ctx->db, &n);
  struct u64map sites; /* hash of (stack, pystack) -> site index */
  u64map_init(&sites);
  for (size_t k = 0; k < n; k++) {
    const struct coll_call *x = &calls[k];
    GROW(l->v, l->cap, l->n + 1);
    struct coll *c = &l->v[l->n++];
    c->seq = x->seq;
    c->comm_id = x->comm_id;
    c->rank = x->rank;
    c->nranks = x->nranks;
    c->kind = x->kind; /* taken */
    c->count = x->count;
    c->datatype = x->datatype;
    c->root = x->root;
    c->redop = x->redop;
    uint64_t key = ((uint64_t)x->stack << 32) ^ (uint64_t)x->pystack, i;
    if (!u64map_get(&sites, key, &i)) {
      struct callsite site;
      callsite_resolve_call(ctx->cs, c->seq, &site);
      struct location loc = callsite_location(&site);
      GROW(l->sites, l->capsites, l->nsites + 1);
      location_copy(&l->sites[l->nsites], &loc);
      i = l->nsites++;
      u64map_put(&sites, key, i);
    }
    c->site = (size_t)i;
  }
  free(calls); /* the kinds are the log's */
  u64map_free(&sites);
  return l;
}

static void free_calls(struct coll_log *l)
{
  for (size_t i = 0; i < l->n; i++)
    free(l->v[i].kind);
  for (size_t i = 0; i < l->nsites; i++)
    location_free(&l->sites[i]);
  free(l->v);
  free(l->sites);
  l->v = NULL;
  l->sites = NULL;
  l->n = l->cap = l->nsites = l->capsites = 0;
}

void collectives_drop_calls(struct coll_log *l)
{
  free_calls(l);
}

static void free_sums(struct coll_log *l)
{
  for (size_t i = 0; i < l->nsums; i++)
    free(l->sums[i].blocks);
  free(l->sums);
  l->sums = NULL;
  l->nsums = 0;
}

void collectives_free(struct coll_log *l)
{
  if (!l)
    return;
  free_calls(l);
  free_sums(l);
  free(l);
}

/* ---- sums ------------------------------------------------------------------ */


/* what same() compares: kind, count, datatype, root, and the reduction
 * when it is one of NCCL's own (-1 for any other: equal sums mean equal
 * sequences; blocks whose sums differ are compared call by call) */
static uint64_t hash_coll(uint64_t h, const struct coll *c)
{
  int64_t v[4] = {c->count, c->datatype, c->root,
                  c->redop >= 0 && c->redop < 5 ? c->redop : -1};
  h = cl_fnv1a(h, c->kind, strlen(c->kind) + 1);
  return cl_fnv1a(h, v, sizeof v);
}

/* L's sums, and each collective's place, from its collectives when it has
 * not been folded */
static void summarize(struct coll_log *l)
{
  if (l->folded)
    return;
  free_sums(l);
  size_t cap = 0, last = 0;
  for (size_t i = 0; i < l->n; i++) {
    struct coll *c = &l->v[i];
    size_t k = last;
    if (k >= l->nsums || l->sums[k].comm_id != c->comm_id ||
        l->sums[k].rank != c->rank)
      for (k = 0; k < l->nsums; k++)
        if (l->sums[k].comm_id == c->comm_id && l->sums[k].rank == c->rank)
          break;
    if (k == l->nsums) {
      GROW(l->sums, cap, l->nsums + 1);
      memset(&l->sums[k], 0, sizeof l->sums[k]);
      l->sums[k].comm_id = c->comm_id;
      l->sums[k].rank = c->rank;
      l->nsums++;
    }
    struct coll_sum *sm = &l->sums[k];
    c->pos = sm->n;
    size_t b = sm->n / COLL_BLOCK;
    if (sm->n % COLL_BLOCK == 0) {
      GROW(sm->blocks, sm->cap_blocks, b + 1);
      sm->blocks[b] = CL_FNV_OFFSET;
    }
    sm->blocks[b] = hash_coll(sm->blocks[b], c);
    sm->n++;
    last = k;
  }
}

void collectives_fold(struct coll_log *l)
{
  summarize(l);
  free_calls(l);
  l->folded = 1;
}

/* ---- comparing ------------------------------------------------------------- */

/* one rank of one communicator: its collectives in order, those at places
 * [base, base + n) of its total */
struct rank_seq {
  int64_t comm_id;
  int32_t rank, nranks;
  size_t rec;           /* the recording */
  const struct coll **v;
  size_t n, cap;
  size_t base, total;
};

static int cmp_seq(const void *pa, const void *pb)
{
  const struct rank_seq *a = pa, *b = pb;
  if (a->comm_id != b->comm_id)
    return a->comm_id < b->comm_id ? -1 : 1;
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  return a->rec < b->rec ? -1 : a->rec > b->rec;
}

static bool same(const struct coll *a, const struct coll *b)
{
  bool builtin = a->redop >= 0 && a->redop < 5 && b->redop >= 0 && b->redop < 5;
  return !strcmp(a->kind, b->kind) && a->count == b->count &&
         a->datatype == b->datatype && a->root == b->root &&
         (!builtin || a->redop == b->redop);
}

/* "all-reduce of 65536 float32 (sum)" */
static char *describe(const struct coll *c)
{
  static const char *const ops[] = {"sum", "prod", "max", "min", "avg"};
  char t[32], extra[48] = "";
  kind_text(t, sizeof t, c->datatype);
  if (c->root >= 0)
    snprintf(extra, sizeof extra, ", root %" PRId64, c->root);
  if (c->redop >= 0 && c->redop < 5)
    snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", %s",
             ops[c->redop]);
  return xasprintf("%s of %" PRId64 " %s%s", c->kind, c->count, t, extra);
}

static const struct location *site_of(struct coll_log *const *logs,
                                      const struct rank_seq *s, size_t pos)
{
  return &logs[s->rec]->sites[s->v[pos]->site];
}

static const char *proc_name(char *buf, size_t len, const struct process *p)
{
  if (p->rank >= 0)
    snprintf(buf, len, "rank %" PRId64 " of the job, process %s",
             p->rank, p->pid ? p->pid : "?");
  else
    snprintf(buf, len, "process %s", p->pid ? p->pid : "?");
  return buf;
}

/* the ranks S[0..N) of one communicator, their places [base, base + n):
 * the first difference, if any (then true) */
static bool compare_comm(struct coll_log *const *logs,
                         const struct merge_origins *o, struct rank_seq *s,
                         size_t n, struct findings *out)
{
  size_t base = s[0].base;
  size_t longest = 0;
  for (size_t i = 0; i < n; i++)
    if (s[i].n > longest)
      longest = s[i].n;
  for (size_t pos = 0; pos < longest; pos++) {
    /* the reference: the lowest rank with a collective here */
    size_t ref = 0;
    while (ref < n && s[ref].n <= pos)
      ref++;
    const struct coll *rc = s[ref].v[pos];
    size_t bad = n; /* the first rank that differs */
    for (size_t i = 0; i < n && bad == n; i++)
      if (s[i].n <= pos || !same(s[i].v[pos], rc))
        bad = i;
    if (bad == n)
      continue;
    /* at the call of the rank that differs; at the reference's call when
     * the ranks that differ have none */
    const struct rank_seq *at = s[bad].n > pos ? &s[bad] : &s[ref];
    struct location loc = *site_of(logs, at, pos);
    char *want = describe(rc);
    struct finding *f;
    int32_t nranks = rc->nranks;
    if (s[bad].n > pos) {
      char *got = describe(s[bad].v[pos]);
      f = findings_add(out, CHECK_COLLECTIVE_MISMATCH, &loc,
                       "NCCL collective %zu of a communicator of %d ranks:"
                       " rank %d calls %s where rank %d calls %s",
                       base + pos + 1, (int)nranks, (int)s[bad].rank, got,
                       (int)s[ref].rank, want);
      free(got);
    } else {
      f = findings_add(out, CHECK_COLLECTIVE_MISMATCH, &loc,
                       "NCCL collective %zu of a communicator of %d ranks:"
                       " rank %d calls %s, rank %d makes no collective %zu"
                       " (it made %zu on this communicator)",
                       base + pos + 1, (int)nranks, (int)s[ref].rank, want,
                       (int)s[bad].rank, base + pos + 1, s[bad].total);
    }
    free(want);
    finding_set_fix(f, "make every rank issue the same collectives on the"
                       " communicator in the same order, with the same count,"
                       " datatype, root and reduction (in PyTorch, the same"
                       " torch.distributed calls on tensors of the same shape"
                       " and dtype, and no rank skipping one)");
    finding_set_extra(f, "position", (int64_t)(base + pos) + 1);
    finding_add_op(f, at->v[pos]->seq);
    char pb[96];
    for (size_t i = 0; i < n; i++) {
      if (s[i].n > pos) {
        char *d = describe(s[i].v[pos]);
        finding_add_related(f, site_of(logs, &s[i], pos), "rank %d: %s (%s)",
                            (int)s[i].rank, d,
                            proc_name(pb, sizeof pb, o->procs[s[i].rec]));
        free(d);
      } else {
        finding_add_detail(f, NULL, "rank %d: no collective %zu; its %zu"
                           " collectives on this communicator end before (%s)",
                           (int)s[i].rank, base + pos + 1, s[i].total,
                           proc_name(pb, sizeof pb, o->procs[s[i].rec]));
      }
    }
    if (o->n > 1) {
      for (size_t k = 0; k < o->n; k++)
        for (size_t i = 0; i < n; i++)
          if (s[i].rec == k) {
            GROW(f->origins, f->cap_origins, f->norigins + 1);
            f->origins[f->norigins++] = k;
            break;
          }
      f->origin_label = merge_origin_label(f, o);
    }
    return true; /* the first difference only: the rest follows from it */
  }
  return false;
}

/* does L have collectives of COMM_ID? */
static bool total_of_any(const struct coll_log *l, int64_t comm_id)
{
  for (size_t i = 0; i < l->nsums; i++)
    if (l->sums[i].comm_id == comm_id)
      return true;
  return false;
}

/* the communicator COMM_ID of LOGS[0..O->n) at places [LO, HI), call by
 * call; true when a difference was found */
static bool compare_calls(struct coll_log *const *logs,
                          const struct merge_origins *o, struct findings *out,
                          int64_t comm_id, size_t lo, size_t hi)
{
  size_t n = o->n;
  struct rank_seq *seqs = NULL;
  size_t nseqs = 0, cap = 0;
  /* every rank of the communicator, also one with none of these places */
  for (size_t k = 0; k < n; k++) {
    const struct coll_log *l = logs[k];
    for (size_t i = 0; l && i < l->nsums; i++) {
      if (l->sums[i].comm_id != comm_id)
        continue;
      GROW(seqs, cap, nseqs + 1);
      struct rank_seq *s = &seqs[nseqs++];
      memset(s, 0, sizeof *s);
      s->comm_id = comm_id;
      s->rank = l->sums[i].rank;
      s->rec = k;
      s->base = lo;
      s->total = l->sums[i].n;
    }
  }
  size_t first = 0; /* the seqs of recording k start here */
  for (size_t k = 0; k < n; k++) {
    const struct coll_log *l = logs[k];
    while (first < nseqs && seqs[first].rec < k)
      first++;
    for (size_t i = 0; l && i < l->n; i++) {
      const struct coll *c = &l->v[i];
      if (c->comm_id != comm_id || c->pos < lo || c->pos >= hi)
        continue;
      struct rank_seq *s = NULL;
      for (size_t j = first; j < nseqs && seqs[j].rec == k && !s; j++)
        if (seqs[j].rank == c->rank)
          s = &seqs[j];
      if (!s)
        continue; /* not in its sums: cannot be */
      s->nranks = c->nranks;
      GROW(s->v, s->cap, s->n + 1);
      s->v[s->n++] = c;
    }
  }
  if (nseqs) /* qsort takes no NULL, even for nothing */
    qsort(seqs, nseqs, sizeof *seqs, cmp_seq);
  /* a rank recorded twice (two recordings claim it): the first counts */
  size_t m = 0;
  for (size_t k = 0; k < nseqs; k++)
    if (k == 0 || seqs[k].rank != seqs[m - 1].rank)
      seqs[m++] = seqs[k];
    else
      free(seqs[k].v);
  bool found = m > 1 && compare_comm(logs, o, seqs, m, out);
  for (size_t k = 0; k < m; k++)
    free(seqs[k].v);
  free(seqs);
  return found;
}

/* one rank's sum of a communicator, and its recording */
struct sum_ref {
  const struct coll_sum *s;
  size_t rec;
};

static int cmp_sum_ref(const void *pa, const void *pb)
{
  const struct sum_ref *a = pa, *b = pb;
  if (a->s->comm_id != b->s->comm_id)
    return a->s->comm_id < b->s->comm_id ? -1 : 1;
  if (a->s->rank != b->s->rank)
    return a->s->rank < b->s->rank ? -1 : 1;
  return a->rec < b->rec ? -1 : a->rec > b->rec;
}

/* the length of block B of a rank of N collectives */
static size_t block_len(size_t n, size_t b)
{
  size_t lo = b * COLL_BLOCK;
  return n <= lo ? 0 : n - lo < COLL_BLOCK ? n - lo : COLL_BLOCK;
}

/* do the ranks V[0..N) (one sum each) disagree on block B? */
static bool block_differs(const struct sum_ref *v, size_t n, size_t b)
{
  size_t len0 = block_len(v[0].s->n, b);
  for (size_t i = 1; i < n; i++) {
    size_t len = block_len(v[i].s->n, b);
    if (len != len0 || (len && v[i].s->blocks[b] != v[0].s->blocks[b]))
      return true;
  }
  return false;
}

void collectives_compare(struct coll_log *const *logs,
                         const struct merge_origins *o, struct findings *out,
                         int (*reload)(size_t, void *, int64_t, size_t,
                                       size_t),
                         void *arg)
{
  size_t n = o->n;
  struct sum_ref *refs = NULL;
  size_t nrefs = 0, cap = 0;
  for (size_t k = 0; k < n; k++) {
    struct coll_log *l = logs[k];
    if (!l)
      continue;
    summarize(l);
    for (size_t i = 0; i < l->nsums; i++) {
      GROW(refs, cap, nrefs + 1);
      refs[nrefs++] = (struct sum_ref){&l->sums[i], k};
    }
  }
  if (nrefs)
    qsort(refs, nrefs, sizeof *refs, cmp_sum_ref);
  size_t before = out->n;
  struct sum_ref *ranks = xcalloc(nrefs ? nrefs : 1, sizeof *ranks);
  bool *again = xcalloc(n ? n : 1, sizeof *again);
  for (size_t i = 0; i < nrefs;) {
    size_t j = i;
    size_t m = 0, longest = 0;
    int64_t comm_id = refs[i].s->comm_id;
    /* each rank once: the first recording that has it */
    for (; j < nrefs && refs[j].s->comm_id == comm_id; j++)
      if (j == i || refs[j].s->rank != refs[j - 1].s->rank) {
        ranks[m++] = refs[j];
        if (refs[j].s->n > longest)
          longest = refs[j].s->n;
      }
    for (size_t b = 0; m > 1 && b * COLL_BLOCK < longest; b++) {
      if (!block_differs(ranks, m, b))
        continue;
      size_t lo = b * COLL_BLOCK, hi = lo + COLL_BLOCK;
      for (size_t k = 0; k < n; k++) {
        struct coll_log *l = logs[k];
        again[k] = false;
        if (!l || !l->folded || !reload || !total_of_any(l, comm_id))
          continue;
        if (reload(k, arg, comm_id, lo, hi) == 0)
          again[k] = true;
      }
      bool found = compare_calls(logs, o, out, comm_id, lo, hi);
      for (size_t k = 0; k < n; k++)
        if (again[k])
          collectives_drop_calls(logs[k]);
      if (found)
        break;
    }
    i = j;
  }
  free(again);
  free(ranks);
  free(refs);
  if (out->n != before) {
    findings_sort(out);
    findings_fingerprint(out);
  }
}

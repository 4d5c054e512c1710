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
#include "cudalens/format.h"
#include "model/collectives.h"
#include "recordings.h"
#include "u64map.h"
#include "util.h"

struct coll {
  int64_t seq, comm_id, count, datatype, root, redop;
  int32_t rank, nranks;
  char *kind;
  size_t site;  /* index into the log's sites */
};

struct coll_log {
  struct coll *v;
  size_t n, cap;
  struct location *sites;
  size_t nsites, capsites;
};

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

void collectives_free(struct coll_log *l)
{
  if (!l)
    return;
  for (size_t i = 0; i < l->n; i++)
    free(l->v[i].kind);
  for (size_t i = 0; i < l->nsites; i++)
    location_free(&l->sites[i]);
  free(l->v);
  free(l->sites);
  free(l);
}

/* ---- comparing ------------------------------------------------------------- */

/* one rank of one communicator: its collectives in order */
struct rank_seq {
  int64_t comm_id;
  int32_t rank, nranks;
  size_t rec;           /* the recording */
  const struct coll **v;
  size_t n, cap;
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

static const struct location *site_of(const struct recording *r,
                                      const struct rank_seq *s, size_t pos)
{
  return &r[s->rec].colls->sites[s->v[pos]->site];
}

static const char *proc_name(char *buf, size_t len, const struct recording *r)
{
  if (r->sum.proc.rank >= 0)
    snprintf(buf, len, "rank %" PRId64 " of the job, process %s",
             r->sum.proc.rank, r->sum.proc.pid ? r->sum.proc.pid : "?");
  else
    snprintf(buf, len, "process %s", r->sum.proc.pid ? r->sum.proc.pid : "?");
  return buf;
}

/* the ranks S[0..N) of one communicator: the first difference, if any */
static void compare_comm(struct recording *r, size_t nrec, struct rank_seq *s,
                         size_t n, struct findings *out)
{
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
    struct location loc = *site_of(r, at, pos);
    char *want = describe(rc);
    struct finding *f;
    int32_t nranks = rc->nranks;
    if (s[bad].n > pos) {
      char *got = describe(s[bad].v[pos]);
      f = findings_add(out, CHECK_COLLECTIVE_MISMATCH, &loc,
                       "NCCL collective %zu of a communicator of %d ranks:"
                       " rank %d calls %s where rank %d calls %s",
                       pos + 1, (int)nranks, (int)s[bad].rank, got,
                       (int)s[ref].rank, want);
      free(got);
    } else {
      f = findings_add(out, CHECK_COLLECTIVE_MISMATCH, &loc,
                       "NCCL collective %zu of a communicator of %d ranks:"
                       " rank %d calls %s, rank %d makes no collective %zu"
                       " (it made %zu on this communicator)",
                       pos + 1, (int)nranks, (int)s[ref].rank, want,
                       (int)s[bad].rank, pos + 1, s[bad].n);
    }
    free(want);
    finding_set_fix(f, "make every rank issue the same collectives on the"
                       " communicator in the same order, with the same count,"
                       " datatype, root and reduction (in PyTorch, the same"
                       " torch.distributed calls on tensors of the same shape"
                       " and dtype, and no rank skipping one)");
    finding_set_extra(f, "position", (int64_t)pos + 1);
    finding_add_op(f, at->v[pos]->seq);
    char pb[96];
    for (size_t i = 0; i < n; i++) {
      if (s[i].n > pos) {
        char *d = describe(s[i].v[pos]);
        finding_add_related(f, site_of(r, &s[i], pos), "rank %d: %s (%s)",
                            (int)s[i].rank, d,
                            proc_name(pb, sizeof pb, &r[s[i].rec]));
        free(d);
      } else {
        finding_add_detail(f, NULL, "rank %d: no collective %zu; its %zu"
                           " collectives on this communicator end before (%s)",
                           (int)s[i].rank, pos + 1, s[i].n,
                           proc_name(pb, sizeof pb, &r[s[i].rec]));
      }
    }
    if (nrec > 1) {
      for (size_t k = 0; k < nrec; k++)
        for (size_t i = 0; i < n; i++)
          if (s[i].rec == k) {
            GROW(f->origins, f->cap_origins, f->norigins + 1);
            f->origins[f->norigins++] = k;
            break;
          }
      f->origin_label = merge_origin_label(f, r, nrec);
    }
    return; /* the first difference only: the rest follows from it */
  }
}

void collectives_compare(struct recording *r, size_t n, struct findings *out)
{
  struct rank_seq *seqs = NULL;
  size_t nseqs = 0, cap = 0;
  for (size_t k = 0; k < n; k++) {
    const struct coll_log *l = r[k].colls;
    for (size_t i = 0; l && i < l->n; i++) {
      const struct coll *c = &l->v[i];
      struct rank_seq *s = NULL;
      for (size_t j = nseqs; j-- > 0 && !s;)
        if (seqs[j].comm_id == c->comm_id && seqs[j].rank == c->rank &&
            seqs[j].rec == k)
          s = &seqs[j];
      if (!s) {
        GROW(seqs, cap, nseqs + 1);
        s = &seqs[nseqs++];
        memset(s, 0, sizeof *s);
        s->comm_id = c->comm_id;
        s->rank = c->rank;
        s->nranks = c->nranks;
        s->rec = k;
      }
      GROW(s->v, s->cap, s->n + 1);
      s->v[s->n++] = c;
    }
  }
  if (nseqs) /* qsort takes no NULL, even for nothing */
    qsort(seqs, nseqs, sizeof *seqs, cmp_seq);
  size_t before = out->n;
  for (size_t i = 0; i < nseqs;) {
    size_t j = i + 1;
    while (j < nseqs && seqs[j].comm_id == seqs[i].comm_id)
      j++;
    /* a rank recorded twice (two recordings claim it): the first counts */
    size_t m = i;
    for (size_t k = i; k < j; k++)
      if (k == i || seqs[k].rank != seqs[m - 1].rank)
        seqs[m++] = seqs[k];
      else
        free(seqs[k].v);
    if (m - i > 1)
      compare_comm(r, n, seqs + i, m - i, out);
    for (size_t k = i; k < m; k++)
      free(seqs[k].v);
    i = j;
  }
  free(seqs);
  if (out->n != before) {
    findings_sort(out);
    findings_fingerprint(out);
  }
}

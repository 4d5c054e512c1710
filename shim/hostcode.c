/* hostcode.c - the executable segments of the objects loaded in the
 * process, kept as sorted, immutable snapshots: kparams.c asks whether a
 * word of a kernel's by-value argument is an address in host code, which
 * no kernel argument means (the device cannot run host code) but a return
 * address left on the stack is.  A snapshot is made again when the loader
 * lists a new object (cl_loaded_walk), looked at most once a millisecond;
 * old snapshots are never freed (another thread may still read one; they
 * are few: one per change of the loaded objects). */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudaload.h"
#include "hostcode.h"
#include "objects.h"
#include "shim.h"

/* A lookup reads a few cache lines, and on a launch of a Python program
 * those are cold (bench/README.md, "Cold caches"): the segments are laid
 * out as a static B+ tree of 64-byte lines rather than one array searched
 * by halves (about 9 lines for 300 segments, most of them apart from a
 * launch's other lookups).  The leaves are the sorted segments, 4 to a
 * line; above them, level 0 holds the first address of each leaf line, 8
 * to a line, level 1 the first of each line of level 0, and so on up to
 * the top, at most TOP_KEYS keys read in turn: a lookup reads one line a
 * level below the top, and a leaf.  The top's lines are shared by a
 * launch's lookups and read independently of each other (at once, where
 * each level below must wait for the one above): for 300 segments, the
 * top is level 0 (75 keys, 10 lines) and a lookup waits for 2 lines (the
 * top's, then the leaf) where it waited for 4 with 8 keys at the top.  The
 * answer is the same as the array's: the last segment starting at or
 * before v, and v below its end. */
#define TOP_KEYS 128
#define TREE_LEVELS 5 /* 4 * 8^4 * 128 segments: more than a process has */
struct cl_hostcode { /* one line; the leaves follow it, then the keys */
  uint64_t lo, hi;   /* the start of the lowest segment, the end of the
                      * highest */
  uint64_t gap_lo, gap_hi; /* the widest space between two segments
                            * (between a program and its libraries, where
                            * brk's heap grows); 0, 0: none */
  uint32_t n, levels;    /* segments; levels of keys */
  uint32_t off[TREE_LEVELS]; /* level l's first key in keys (level 0: the
                              * one above the leaves) */
  uint32_t ntop;         /* keys at the top level (the last of levels) */
};
_Static_assert(sizeof(struct cl_hostcode) == 64, "one line");

static _Atomic(const struct cl_hostcode *) current;
static _Atomic unsigned long long seen_adds; /* of cl_loaded_walk */
static _Atomic uint64_t checked_ms;          /* when the loader was asked */
static pthread_mutex_t rebuild_lock = PTHREAD_MUTEX_INITIALIZER;

struct build {
  struct cl_span *v;
  size_t n, cap;
};

static int add_object(struct dl_phdr_info *info, void *arg)
{
  struct build *b = arg;
  size_t n = b->n;
  while (cl_object_exec(info, b->v, &b->n, b->cap)) {
    /* what fitted is appended again once there is room for all */
    b->n = n;
    size_t nc = b->cap ? b->cap * 2 : 256;
    struct cl_span *v = realloc(b->v, nc * sizeof *v);
    if (!v)
      return 1;
    b->v = v, b->cap = nc;
  }
  return 0;
}

static int by_lo(const void *a, const void *b)
{
  uint64_t x = ((const struct cl_span *)a)->lo;
  uint64_t y = ((const struct cl_span *)b)->lo;
  return x < y ? -1 : x > y;
}

static uint64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* a snapshot of the N segments V (sorted by lo), in one allocation; NULL
 * when N is 0 or too many, or memory is short (snapshots are never freed:
 * see the top) */
static struct cl_hostcode *make(const struct cl_span *v, size_t n)
{
  size_t lines = (n + 3) / 4, nkeys = 0, m = lines;
  unsigned levels = 0;
  uint32_t off[TREE_LEVELS];
  for (;;) { /* level 0: a key a leaf line; each next: a key a line */
    if (levels == TREE_LEVELS || n > UINT32_MAX)
      return NULL;
    off[levels++] = (uint32_t)nkeys;
    nkeys += (m + 7) / 8 * 8;
    if (m <= TOP_KEYS)
      break;
    m = (m + 7) / 8;
  }
  uint32_t ntop = (uint32_t)m;
  if (!n)
    return NULL;
  unsigned char *mem = aligned_alloc(64, 64 + lines * 64 + nkeys * 8);
  if (!mem)
    return NULL;
  struct cl_hostcode *c = (struct cl_hostcode *)mem;
  struct cl_span *leaves = (struct cl_span *)(c + 1);
  uint64_t *keys = (uint64_t *)(mem + 64 + lines * 64); /* as keys_of's */
  memcpy(leaves, v, n * sizeof *v);
  for (size_t i = n; i < lines * 4; i++) /* never read: a lookup stops at n */
    leaves[i] = (struct cl_span){UINT64_MAX, 0};
  for (size_t i = 0; i < nkeys; i++)
    keys[i] = UINT64_MAX; /* never counted: a word looked up is below hi */
  m = lines;
  for (unsigned l = 0; l < levels; l++, m = (m + 7) / 8)
    for (size_t i = 0; i < m; i++)
      keys[off[l] + i] = l ? keys[off[l - 1] + 8 * i] : leaves[4 * i].lo;
  *c = (struct cl_hostcode){v[0].lo, v[0].hi, 0, 0, (uint32_t)n, levels, {0}, 0};
  memcpy(c->off, off, levels * sizeof *off);
  c->ntop = ntop;
  for (size_t i = 1; i < n; i++) { /* c->hi: the end of those before i */
    if (v[i].lo > c->hi && v[i].lo - c->hi > c->gap_hi - c->gap_lo)
      c->gap_lo = c->hi, c->gap_hi = v[i].lo;
    if (v[i].hi > c->hi)
      c->hi = v[i].hi;
  }
  return c;
}

const struct cl_hostcode *cl_hostcode_make(const uint64_t *lo,
                                           const uint64_t *hi, size_t n)
{
  struct cl_span *v = malloc((n ? n : 1) * sizeof *v);
  if (!v)
    return NULL;
  for (size_t i = 0; i < n; i++)
    v[i] = (struct cl_span){lo[i], hi[i]};
  qsort(v, n, sizeof *v, by_lo);
  struct cl_hostcode *c = make(v, n);
  free(v);
  return c;
}

const struct cl_hostcode *cl_hostcode_now(void)
{
  const struct cl_hostcode *c = atomic_load_explicit(&current, memory_order_acquire);
  uint64_t ms = now_ms();
  if (c && atomic_load_explicit(&checked_ms, memory_order_relaxed) == ms)
    return c;
  if (pthread_mutex_trylock(&rebuild_lock) != 0)
    return c; /* another thread is looking: the last snapshot will do */
  atomic_store_explicit(&checked_ms, ms, memory_order_relaxed);
  struct build b = {NULL, 0, 0};
  if (cl_loaded_walk(&seen_adds, add_object, &b) && b.n) {
    qsort(b.v, b.n, sizeof *b.v, by_lo);
    struct cl_hostcode *n = make(b.v, b.n);
    if (n) {
      atomic_store_explicit(&current, n, memory_order_release);
      c = n;
    }
  }
  free(b.v);
  pthread_mutex_unlock(&rebuild_lock);
  return c;
}

/* how many of the 8 keys K are at or below V (on the way down the first
 * always is: it is the key that led there) */
static inline unsigned count_le(const uint64_t *k, uint64_t v)
{
  unsigned c = 0;
  for (unsigned i = 0; i < 8; i++)
    c += k[i] <= v;
  return c;
}

/* the leaves and the keys of snapshot C */
static inline const struct cl_span *leaves_of(const struct cl_hostcode *c)
{
  return (const struct cl_span *)(c + 1);
}
static inline const uint64_t *keys_of(const struct cl_hostcode *c)
{
  return (const uint64_t *)(const void *)((const unsigned char *)(c + 1) +
                                          (c->n + 3) / 4 * 64);
}

int cl_hostcode_has(const struct cl_hostcode *code, uint64_t v)
{
  if (!code || v < code->lo || v >= code->hi ||
      v - code->gap_lo < code->gap_hi - code->gap_lo)
    return 0; /* (most words: cheaply) */
  const struct cl_span *leaves = leaves_of(code);
  const uint64_t *keys = keys_of(code);
  /* from the top line down: the index of the last key at or below v */
  const uint64_t *top = keys + code->off[code->levels - 1];
  size_t i = 0; /* the top's lines of 8, up to the one with a key above v */
  while (8 * i + 8 < code->ntop && top[8 * i + 8] <= v)
    i++;
  i = 8 * i + count_le(top + 8 * i, v) - 1;
  for (unsigned l = code->levels - 1; l-- > 0;)
    i = 8 * i + count_le(keys + code->off[l] + 8 * i, v) - 1;
  /* leaf line i: the last of its segments starting at or before v */
  size_t j = 4 * i + 1;
  while (j < code->n && j < 4 * i + 4 && leaves[j].lo <= v)
    j++;
  return v < leaves[j - 1].hi;
}

void cl_hostcode_bounds(const struct cl_hostcode *code, uint64_t *lo,
                        uint64_t *span, uint64_t *gap_lo, uint64_t *gap_span)
{
  *gap_lo = code->gap_lo;
  *gap_span = code->gap_hi - code->gap_lo;
  *lo = code->lo;
  *span = code->hi - code->lo;
}

void cl_hostcode_atfork_prepare(void)
{
  pthread_mutex_lock(&rebuild_lock);
}
void cl_hostcode_atfork_parent(void)
{
  pthread_mutex_unlock(&rebuild_lock);
}
void cl_hostcode_atfork_child(void)
{
  pthread_mutex_init(&rebuild_lock, NULL);
}

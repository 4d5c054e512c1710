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
#include "shim.h"

struct seg {
  uint64_t lo, hi;
};
struct cl_hostcode {
  size_t n;
  uint64_t hi; /* the end of the highest segment */
  struct seg v[];
};

static _Atomic(const struct cl_hostcode *) current;
static _Atomic unsigned long long seen_adds; /* of cl_loaded_walk */
static _Atomic uint64_t checked_ms;          /* when the loader was asked */
static pthread_mutex_t rebuild_lock = PTHREAD_MUTEX_INITIALIZER;

struct build {
  struct seg *v;
  size_t n, cap;
};

static int add_object(struct dl_phdr_info *info, void *arg)
{
  struct build *b = arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !ph->p_memsz)
      continue;
    if (b->n == b->cap) {
      size_t nc = b->cap ? b->cap * 2 : 256;
      struct seg *v = realloc(b->v, nc * sizeof *v);
      if (!v)
        return 1;
      b->v = v, b->cap = nc;
    }
    uint64_t lo = info->dlpi_addr + ph->p_vaddr;
    b->v[b->n++] = (struct seg){lo, lo + ph->p_memsz};
  }
  return 0;
}

static int by_lo(const void *a, const void *b)
{
  uint64_t x = ((const struct seg *)a)->lo, y = ((const struct seg *)b)->lo;
  return x < y ? -1 : x > y;
}

static uint64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
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
    struct cl_hostcode *n = malloc(sizeof *n + b.n * sizeof n->v[0]);
    if (n) {
      qsort(b.v, b.n, sizeof *b.v, by_lo);
      memcpy(n->v, b.v, b.n * sizeof *b.v);
      n->n = b.n;
      n->hi = 0;
      for (size_t i = 0; i < b.n; i++)
        if (b.v[i].hi > n->hi)
          n->hi = b.v[i].hi;
      atomic_store_explicit(&current, n, memory_order_release);
      c = n;
    }
  }
  free(b.v);
  pthread_mutex_unlock(&rebuild_lock);
  return c;
}

int cl_hostcode_has(const struct cl_hostcode *code, uint64_t v)
{
  if (!code || v < code->v[0].lo || v >= code->hi)
    return 0; /* (most words: cheaply) */
  size_t lo = 0, hi = code->n; /* the first segment starting after v */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (code->v[mid].lo <= v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && v < code->v[lo - 1].hi;
}

void cl_hostcode_bounds(const struct cl_hostcode *code, uint64_t *lo,
                        uint64_t *span)
{
  *lo = code->v[0].lo;
  *span = code->hi - code->v[0].lo;
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

/* test_kparams.c - unit test of the kernel-parameter scan
 * (cl_kparams_scan): the words it keeps from random launches, four words
 * at a time (AVX2) and word by word, must be the same: pointers into
 * allocations at any offset of any parameter, by-value aggregates holding
 * host code addresses (marked, as are a parameter's words past its 16th;
 * and data among the code segments, which is
 * not code), parameters whose size is no multiple of 32
 * bytes, more pointers than a launch keeps (16 for a graph's node, 1,088
 * for a launch), parameters past 4 KiB, allocations freed and made
 * anew at the same place, smaller or of another kind (the scan keeps the
 * ranges a thread found last); and the same as a plain scan
 * written here (every word of every parameter looked up in the map and,
 * in an aggregate, among host code).  The driver's layout query is
 * this program's cuFuncGetParamInfo (exported: the shim finds it by
 * name). */
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "cudalens/xorshift.h"
#include "shim/hostcode.h"
#include "shim/kparams.h"
#include "shim/ring.h"
#include "shim/writer.h"
#include "shim/shim.h"
#include "../unit.h"

/* a kernel's parameters: their sizes, laid out 8-aligned */
struct kernel {
  unsigned n;
  size_t size[8];
};
static const struct kernel kernels[] = {
    {4, {8, 8, 4, 8}},                /* pointers and an int */
    {3, {8, 584, 4}},                 /* a TensorIterator-like struct */
    {2, {40, 200}},                   /* sizes not multiples of 32 */
    {5, {8, 8, 8, 8, 4096}},          /* a large aggregate: many pointers */
    {1, {24}},                        /* fewer than four words */
    {4, {56, 48, 88, 120}},           /* a block and 3, 2, 3 words left */
    {2, {8, 12288}},                  /* multi-tensor metadata (PyTorch's
                                       * TensorListMetadata: 144 addresses
                                       * and more in CUDA 13's builds) */
};
#define NKERNELS (sizeof kernels / sizeof kernels[0])

static size_t offset_of(const struct kernel *k, unsigned i)
{
  size_t off = 0;
  for (unsigned j = 0; j < i; j++)
    off += (k->size[j] + 7) & ~(size_t)7;
  return off;
}

__attribute__((visibility("default"))) int
cuFuncGetParamInfo(void *f, size_t index, size_t *off, size_t *size)
{
  const struct kernel *k = f;
  if (index >= k->n)
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  *off = offset_of(k, (unsigned)index);
  *size = k->size[index];
  return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void)
{
  return cl_xorshift64(&rng);
}

#define DEV 0x7f0000000000ull /* the allocations: 8 of 1 MiB, 16 MiB apart */

/* a word of an argument: mostly neither in an allocation nor host code */
static uint64_t random_word(void)
{
  uint64_t r = next_random();
  switch (r % 16) {
  case 0: case 1: /* inside an allocation, or just past one */
    return DEV + (r >> 8) % 8 * 0x1000000 + (r >> 32) % 0x100100;
  case 2: /* host code */
    return (uint64_t)(uintptr_t)&next_random + (r >> 8) % 64;
  case 3: /* near the allocations' span, outside it */
    return DEV - 8 - (r >> 8) % 4096;
  case 4: /* among the code segments, not code: the C library's data */
    return (uint64_t)(uintptr_t)stdout + (r >> 8) % 64;
  default: /* sizes, flags, strides, garbage */
    return r % 4 ? r % 100000 : r;
  }
}

/* a scan's words: room for a launch's */
struct scan {
  struct cl_kscan s;
  struct cl_karg v[CL_LAUNCH_KARGS];
};

/* X made ready for a scan that keeps CAP words */
static struct cl_kscan *start(struct scan *x, unsigned cap)
{
  x->s = (struct cl_kscan){.kargs = x->v, .cap = (uint16_t)cap};
  return &x->s;
}

/* the plain scan: what cl_kparams_scan must keep, in order, and mark */
static void reference(const struct kernel *k, void **params, unsigned cap,
                      struct cl_kscan *c)
{
  const struct cl_hostcode *code = cl_hostcode_now();
  uint64_t marked = 0;
  c->n = 0, c->truncated = 0;
  for (unsigned i = 0; i < k->n; i++) {
    size_t size = k->size[i] > 32768 ? 32768 : k->size[i];
    for (size_t off = 0; off + 8 <= size; off += 8) {
      uint64_t v, start, end;
      memcpy(&v, (const unsigned char *)params[i] + off, 8);
      if (cl_allocmap_find(v, &start, &end)) {
        if (c->n == cap) {
          c->truncated = 1;
          goto done;
        }
        int kind = cl_allocmap_kind(v, 1);
        c->kargs[c->n++] = (struct cl_karg){
            (uint16_t)i, (uint16_t)off,
            (uint8_t)(kind == CL_MEMKIND_DEVICE || kind == CL_MEMKIND_MAPPED), 0,
            0, v};
      } else if (size > 8 && i < 64 && cl_hostcode_has(code, v)) {
        marked |= (uint64_t)1 << i;
      }
    }
  }
done:
  /* marked: a parameter that held host code, and a parameter's words past
   * its 16th */
  for (unsigned j = 0, nth = 0; j < c->n; j++) {
    nth = j && c->kargs[j].param == c->kargs[j - 1].param ? nth + 1 : 0;
    c->kargs[j].uninit = ((marked >> c->kargs[j].param) & 1) || nth >= 16;
  }
}

static int same(const struct cl_kscan *a, const struct cl_kscan *b)
{
  if (a->n != b->n || a->truncated != b->truncated)
    return 0;
  for (unsigned i = 0; i < a->n; i++)
    if (a->kargs[i].param != b->kargs[i].param ||
        a->kargs[i].offset != b->kargs[i].offset ||
        a->kargs[i].device_only != b->kargs[i].device_only ||
        a->kargs[i].uninit != b->kargs[i].uninit ||
        a->kargs[i].value != b->kargs[i].value)
      return 0;
  return 1;
}

/* Words left for the writer (cl_kparams_scan with DEFER), resolved after
 * the map changed (allocations made in the gaps the words point into,
 * allocations freed and made anew smaller), while the writer thread
 * prunes the removed ranges it keeps, must be what the plain scan kept
 * at the launch.  Allocation 0 is pinned: a launch with a word into it
 * is resolved at once (the host check needs it). */
static void deferred(void)
{
  char dir[] = "/tmp/cl-kparams-XXXXXX", pattern[256], cmd[300];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(pattern, sizeof pattern, "%s/k-%%p.db", dir);
  setenv("CUDALENS_OUTPUT", pattern, 1);
  setenv("CUDALENS_FLUSH_MS", "1", 1);
  cl_config_load();
  cl_end_ns = 1; /* (the recording's end: no CUPTI clock to ask here) */
  for (int i = 0; i < 8; i++) {
    cl_allocmap_remove(DEV + (uint64_t)i * 0x1000000);
    cl_allocmap_add(DEV + (uint64_t)i * 0x1000000, 0x100000,
                    i ? CL_MEMKIND_DEVICE : CL_MEMKIND_PINNED, 0, i ? 0 : -1);
  }
  /* this thread's ring (a scan holds its generation there), and the
   * writer, which prunes on every pass */
  struct cl_record *r = cl_ring_reserve(CL_REC_THREAD);
  CHECK(r != NULL);
  memset(r, 0, sizeof *r);
  r->type = CL_REC_THREAD;
  cl_ring_commit();

  static struct scan defx, refx, nowx;
  struct cl_kscan *def = &defx.s, *ref = &refx.s, *now = &nowx.s;
  static _Alignas(8) unsigned char buf[16384];
  void *params[8];
  int gap[8] = {0};
  unsigned launches = 0, held = 0, kept = 0, marked = 0, history = 0;
  unsigned differ = 0;
  for (int t = 0; t < 20000; t++) {
    const struct kernel *k = &kernels[t % NKERNELS];
    size_t total = offset_of(k, k->n);
    for (size_t w = 0; w < total / 8; w++) {
      uint64_t v = next_random() % 8 ? random_word()
                   /* in a gap, where allocations come and go */
                   : DEV + next_random() % 8 * 0x1000000 + 0x100000 +
                         next_random() % 0x100000;
      memcpy(buf + 8 * w, &v, 8);
    }
    for (unsigned i = 0; i < k->n; i++)
      params[i] = buf + offset_of(k, i);
    /* a graph node's 16 words, or a launch's */
    unsigned cap = t % 3 ? CL_LAUNCH_KARGS : CL_MAX_KARGS;
    reference(k, params, cap, start(&refx, cap));
    cl_kparams_scan((void *)k, params, start(&defx, cap), 1);
    launches++;
    held += def->deferred;
    /* the map changes before the writer comes to the launch */
    for (int n = (int)(next_random() % 3); n > 0; n--) {
      uint64_t a = next_random() % 8;
      uint64_t base = DEV + a * 0x1000000;
      if (next_random() % 2) {
        if (gap[a])
          cl_allocmap_remove(base + 0x100000);
        else
          cl_allocmap_add(base + 0x100000, 0x100000, CL_MEMKIND_DEVICE, 0, 0);
        gap[a] = !gap[a];
      } else if (a) {
        cl_allocmap_remove(base);
        cl_allocmap_add(base, next_random() % 2 ? 0x80000 : 0x100000,
                        CL_MEMKIND_DEVICE, 0, 0);
      }
    }
    if (t % 8 == 0) { /* a writer's pass meanwhile */
      cl_writer_wake();
      usleep(300);
    }
    reference(k, params, cap, start(&nowx, cap));
    history += def->deferred && !same(ref, now);
    int was = def->deferred;
    if (was) { /* (as writer.c's words_of) */
      def->n = (uint16_t)cl_kparams_resolve(def->kargs, def->n, def->gen,
                                            def->code);
      def->deferred = 0;
      cl_ring_release();
    }
    if (!same(ref, def) && differ++ < 5)
      printf("launch %d (kernel %d, %s): %u kept, %u by the plain scan at "
             "the launch\n", t, t % (int)NKERNELS,
             was ? "deferred" : "resolved at once", def->n, ref->n);
    kept += def->n;
    for (unsigned i = 0; i < def->n; i++)
      marked += def->kargs[i].uninit;
  }
  printf("deferred: %u launches, %u left for the writer, %u of them changed "
         "by the map meanwhile; %u words kept, %u marked; %u differ\n",
         launches, held, history, kept, marked, differ);
  CHECK(differ == 0);
  CHECK(held > 2000 && history > 100 && held < launches && marked > 50);
  /* nothing held: the writer's next passes forget the removed ranges */
  size_t dead = 0;
  for (int i = 0; i < 200 && (dead = cl_kparams_dead()) > 0; i++) {
    cl_writer_wake();
    usleep(5000);
  }
  printf("removed ranges kept once nothing is held: %zu\n", dead);
  CHECK(dead == 0);
  cl_writer_stop(1);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

int main(void)
{
  for (int i = 0; i < 8; i++)
    cl_allocmap_add(DEV + (uint64_t)i * 0x1000000, 0x100000,
                    i % 2 ? CL_MEMKIND_DEVICE : CL_MEMKIND_PINNED, 0,
                    i % 2 ? 0 : -1);
  static struct scan vecx, wordx, refx; /* (large) */
  struct cl_kscan *vec = &vecx.s, *word = &wordx.s, *ref = &refx.s;
  static _Alignas(8) unsigned char buf[16384];
  void *params[8];
  /* the first scan asks the processor */
  const struct kernel *k0 = &kernels[0];
  for (unsigned i = 0; i < k0->n; i++)
    params[i] = buf + offset_of(k0, i);
  cl_kparams_scan((void *)k0, params, start(&vecx, CL_MAX_KARGS), 0);
  if (cl_kparams_vector != 1) {
    printf("SKIP: no AVX2 here: the scan goes word by word only\n");
    return 77;
  }
  unsigned kept = 0, truncated = 0, marked = 0, differ = 0;
  unsigned changed = 0, many = 0;
  for (int t = 0; t < 20000; t++) {
    const struct kernel *k = &kernels[t % NKERNELS];
    if (t % 97 == 96) {
      /* an allocation freed and another made where it was, half or whole
       * and of the other kind: a range a thread found before must not
       * answer for it (kparams.c keeps the last ones found) */
      int a = t / 97 % 8, half = t / 97 / 8 % 2;
      cl_allocmap_remove(DEV + (uint64_t)a * 0x1000000);
      cl_allocmap_add(DEV + (uint64_t)a * 0x1000000, half ? 0x80000 : 0x100000,
                      (a + half) % 2 ? CL_MEMKIND_DEVICE : CL_MEMKIND_PINNED, 0,
                      (a + half) % 2 ? 0 : -1);
      changed++;
    }
    size_t total = offset_of(k, k->n);
    for (size_t w = 0; w < total / 8; w++) {
      uint64_t v = random_word();
      memcpy(buf + 8 * w, &v, 8);
    }
    for (unsigned i = 0; i < k->n; i++)
      params[i] = buf + offset_of(k, i);
    unsigned cap = t % 3 ? CL_LAUNCH_KARGS : CL_MAX_KARGS;
    cl_kparams_vector = 1;
    cl_kparams_scan((void *)k, params, start(&vecx, cap), 0);
    cl_kparams_vector = 0;
    cl_kparams_scan((void *)k, params, start(&wordx, cap), 0);
    if (!same(vec, word) && differ++ < 5)
      printf("launch %d (kernel %d): %u kept four at a time, %u word by word\n",
             t, t % (int)NKERNELS, vec->n, word->n);
    reference(k, params, cap, start(&refx, cap));
    if (!same(ref, word) && differ++ < 5)
      printf("launch %d (kernel %d): %u kept word by word, %u by the plain "
             "scan\n", t, t % (int)NKERNELS, word->n, ref->n);
    kept += word->n;
    truncated += word->truncated;
    many += word->n > CL_MAX_KARGS;
    for (unsigned i = 0; i < word->n; i++)
      marked += word->kargs[i].uninit;
  }
  printf("20000 launches: %u words kept, %u launches with more than %d, %u "
         "launches truncated, %u words marked, the map changed %u times; %u "
         "differ\n", kept, many, CL_MAX_KARGS, truncated, marked, changed,
         differ);
  CHECK(differ == 0);
  /* the cases the comparison is about happened */
  CHECK(kept > 10000 && many > 1000 && truncated > 100 && marked > 100);
  deferred();
  UNIT_DONE();
}

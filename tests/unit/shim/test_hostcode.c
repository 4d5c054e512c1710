/* test_hostcode.c - unit test of the host-code snapshot (shim/hostcode.c)
 * by which the recorder tells a by-value kernel structure that holds a
 * return address (not fully initialized): a function of this program and
 * one of the C library are host code; the stack, the heap and small
 * integers are not; a second call within the same millisecond gives the
 * same snapshot; and around every segment's ends, word by word, asked
 * twice and in both directions (the snapshot remembers answers by page),
 * what the loader's own list of executable segments says; and for made-up
 * sets of 1 to 5,000 segments (more than PyTorch loads; trees of 1 to 3 levels), at and around
 * every segment's ends and at random addresses, the answer of a search by
 * halves of the sorted segments (the last one starting at or before the
 * address, and the address below its end), which the snapshot's tree
 * must give exactly. */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

#include "cudalens/xorshift.h"
#include "shim/hostcode.h"
#include "../unit.h"

static int local_function(int x)
{
  return x + 1;
}

/* the executable segments, as the loader lists them */
#define SEGS 512
static uint64_t seg_lo[SEGS], seg_hi[SEGS];
static int nsegs;

static int add_segs(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size, (void)arg;
  for (int i = 0; i < info->dlpi_phnum && nsegs < SEGS; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !ph->p_memsz)
      continue;
    seg_lo[nsegs] = info->dlpi_addr + ph->p_vaddr;
    seg_hi[nsegs++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
  }
  return 0;
}

static int in_segs(uint64_t v)
{
  for (int i = 0; i < nsegs; i++)
    if (v >= seg_lo[i] && v < seg_hi[i])
      return 1;
  return 0;
}

/* every 8th byte from a - 8192 to a + 8192, up then down */
static void around(const struct cl_hostcode *c, uint64_t a)
{
  for (int pass = 0; pass < 2; pass++)
    for (int64_t d = -8192; d <= 8192; d += 8) {
      uint64_t v = pass ? a - (uint64_t)d : a + (uint64_t)d;
      if (cl_hostcode_has(c, v) != in_segs(v)) {
        printf("FAIL: %#llx: snapshot says %d\n", (unsigned long long)v,
               cl_hostcode_has(c, v));
        CHECK(0);
        return;
      }
    }
}

/* the reference: the sorted segments searched by halves */
static int by_halves(const uint64_t *lo, const uint64_t *hi, size_t n,
                     uint64_t v)
{
  size_t a = 0, b = n;
  while (a < b) {
    size_t mid = (a + b) / 2;
    if (lo[mid] <= v)
      a = mid + 1;
    else
      b = mid;
  }
  return a > 0 && v < hi[a - 1];
}

static uint64_t rnd(void)
{
  static uint64_t x = 0x9e3779b97f4a7c15ull;
  return cl_xorshift64(&x);
}

#define MADE 5000
static uint64_t mlo[MADE], mhi[MADE];

/* N segments, sorted, apart from each other (as the loaded objects'); every
 * answer of the snapshot against the reference */
static void made_up(size_t n)
{
  uint64_t a = 0x400000 + (rnd() & 0xfffff000);
  for (size_t i = 0; i < n; i++) {
    a += rnd() % 4 ? 0x1000 + (rnd() & 0xffff) : (rnd() & 0xfffffffffull);
    mlo[i] = a;
    mhi[i] = a + 1 + (rnd() & 0x3ffff);
    a = mhi[i];
  }
  /* the snapshot sorts its copy: give them shuffled */
  uint64_t slo[MADE], shi[MADE];
  size_t perm[MADE];
  for (size_t i = 0; i < n; i++)
    perm[i] = i;
  for (size_t i = n; i > 1; i--) {
    size_t j = rnd() % i, t = perm[i - 1];
    perm[i - 1] = perm[j], perm[j] = t;
  }
  for (size_t i = 0; i < n; i++)
    slo[i] = mlo[perm[i]], shi[i] = mhi[perm[i]];
  const struct cl_hostcode *c = cl_hostcode_make(slo, shi, n);
  CHECK(c != NULL);
  if (!c)
    return;
  int bad = 0;
  for (size_t i = 0; i < n && !bad; i++) {
    uint64_t at[] = {mlo[i], mhi[i]};
    for (int e = 0; e < 2; e++)
      for (int64_t d = -17; d <= 17; d++) {
        uint64_t v = at[e] + (uint64_t)d;
        bad |= cl_hostcode_has(c, v) != by_halves(mlo, mhi, n, v);
      }
  }
  for (int k = 0; k < 20000 && !bad; k++) {
    uint64_t v = mlo[0] - 0x1000 + rnd() % (mhi[n - 1] - mlo[0] + 0x2000);
    bad |= cl_hostcode_has(c, v) != by_halves(mlo, mhi, n, v);
  }
  if (bad)
    printf("FAIL: %zu made-up segments\n", n);
  CHECK(!bad);
}

int main(void)
{
  const struct cl_hostcode *c = cl_hostcode_now();
  CHECK(c != NULL);
  int on_stack = local_function(1);
  char *on_heap = malloc(64);
  CHECK(cl_hostcode_has(c, (uint64_t)(uintptr_t)&local_function));
  CHECK(cl_hostcode_has(c, (uint64_t)(uintptr_t)&puts));
  CHECK(!cl_hostcode_has(c, (uint64_t)(uintptr_t)&on_stack));
  CHECK(!cl_hostcode_has(c, (uint64_t)(uintptr_t)on_heap));
  CHECK(!cl_hostcode_has(c, 0x100000000ull));
  CHECK(!cl_hostcode_has(c, 2));
  CHECK(!cl_hostcode_has(NULL, (uint64_t)(uintptr_t)&local_function));
  dl_iterate_phdr(add_segs, NULL);
  CHECK(nsegs > 1);
  for (int i = 0; i < nsegs; i++) {
    around(c, seg_lo[i]);
    around(c, seg_hi[i]);
  }
  free(on_heap);
  CHECK(cl_hostcode_make(NULL, NULL, 0) == NULL);
  for (size_t n = 1; n <= 70; n++)
    made_up(n);
  size_t sizes[] = {255, 256, 257, 300, 511, 512, 513, 2047, 2048, 2049, 4096, 4097, MADE};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
    made_up(sizes[k]);
  UNIT_DONE();
}

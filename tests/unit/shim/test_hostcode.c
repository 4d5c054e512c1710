/* test_hostcode.c - unit test of the host-code snapshot (shim/hostcode.c)
 * by which the recorder tells a by-value kernel structure that holds a
 * return address (not fully initialized): a function of this program and
 * one of the C library are host code; the stack, the heap and small
 * integers are not; a second call within the same millisecond gives the
 * same snapshot; and around every segment's ends, word by word, asked
 * twice and in both directions (the snapshot remembers answers by page),
 * what the loader's own list of executable segments says. */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

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
  UNIT_DONE();
}

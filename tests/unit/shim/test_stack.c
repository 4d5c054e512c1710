/* test_stack.c - unit test of the shim's stack walk: walks that follow the
 * learned frame distances must give the same frames as glibc's backtrace(),
 * also through a function whose frame size changes between calls (alloca)
 * and one that realigns its stack,
 * and across many repetitions (fast walks and the periodic checked ones);
 * and once learned, walks through the alloca frame (found by its frame
 * pointer), the realigned one (by the CFA saved below its frame pointer)
 * and to the outermost frame (no C library spans to stop at: the
 * shim's code is linked into this program) must not fall back to libgcc;
 * and a walk from the same place at the same stack depth, called by one
 * caller then another (a thread's last walk, remembered, must not stand
 * for a stack whose return addresses changed); and the checks by libgcc
 * grow apart while they agree: 200,000 walks of known shapes need fewer
 * than 20 (at one in 1024 they were 195), yet still check (more than 3). */
#include <alloca.h>
#include <execinfo.h>

#include "shim/shim.h"
#include "shim/stack.h"
#include "../unit.h"

static int mismatches;

__attribute__((noinline)) static void probe(void)
{
  uint64_t a[CL_MAX_FRAMES];
  void *b[CL_MAX_FRAMES + 1];
  int na = cl_stack_capture(a, CL_MAX_FRAMES);
  int nb = backtrace(b, CL_MAX_FRAMES + 1);
  /* a[0] and b[0] are two places in probe(); the callers must agree */
  int n = na < nb ? na : nb;
  for (int i = 1; i < n; i++)
    if (a[i] != (uint64_t)(uintptr_t)b[i]) {
      mismatches++;
      return;
    }
  if (na < 4)
    mismatches++;
}

__attribute__((noinline)) static void level(int depth, int vary);

/* over-aligned data and alloca make GCC realign the stack and keep the CFA
 * in a register saved below the frame pointer */
__attribute__((noinline)) static void realigned(int depth, int vary)
{
  _Alignas(64) volatile char buf[64];
  volatile char *p = alloca((size_t)(8 + 32 * vary));
  buf[0] = (char)depth;
  p[0] = buf[0];
  level(depth - 1, vary);
  __asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) static void level(int depth, int vary)
{
  if (depth == 0) {
    probe();
    return;
  }
  if (depth == 2) { /* a frame whose size differs from call to call */
    volatile char *p = alloca((size_t)(16 + 64 * vary));
    p[0] = 1;
  }
  if (depth == 3) { /* a frame that realigns its stack (GCC's DRAP) */
    realigned(depth, vary);
    return;
  }
  level(depth - 1, vary);
  __asm__ volatile("" ::: "memory"); /* not a tail call */
}

/* two callers of probe() with the same frame, called from one place:
 * the stack differs only in probe's return address */
__attribute__((noinline)) static void via_a(void)
{
  probe();
  __asm__ volatile("" ::: "memory"); /* not a tail call */
}
__attribute__((noinline)) static void via_b(void)
{
  probe();
  __asm__ volatile("" ::: "memory");
}

int main(void)
{
  for (int i = 0; i < 1000; i++)
    level(3 + i % 4, i % 5);
  printf("%d mismatching walks of 1000\n", mismatches);
  CHECK(mismatches == 0);
  unsigned long slow = cl_stack_slow_walks();
  printf("%lu of 1000 walks by libgcc\n", slow);
  CHECK(slow <= 20); /* learning a few frame shapes, and the checks */

  void (*volatile callers[2])(void) = {via_a, via_b};
  mismatches = 0;
  for (int i = 0; i < 1000; i++)
    callers[(i / 3) & 1](); /* runs of three: the same stack, then another */
  printf("%d mismatching walks of 1000 through two callers\n", mismatches);
  CHECK(mismatches == 0);

  mismatches = 0;
  slow = cl_stack_slow_walks();
  for (int i = 0; i < 200000; i++)
    callers[(i / 3) & 1]();
  slow = cl_stack_slow_walks() - slow;
  printf("%d mismatching walks, %lu by libgcc, of 200000\n", mismatches, slow);
  CHECK(mismatches == 0);
  CHECK(slow > 3 && slow < 20);
  UNIT_DONE();
}

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
 * than 20 (at one in 1024 they were 195), yet still check (more than 3).
 * Then walks that alternate among four call sites, three of them at one
 * depth (the same state where the walk starts, different return addresses
 * above), called through one outer caller, then another (the stacks differ
 * only in a word near their outer end), then the two in turn (a round of
 * the sites through each, then each site through both): the same frames
 * as backtrace() every time (also for walks that ask for 6 frames every
 * other round: walks cut short are remembered apart), and once the sites
 * are known, the
 * walks take their frames from the walks remembered instead of following
 * the rules frame by frame (fewer than one frame walked by rules a walk,
 * where one remembered walk left ~17). */
#include <alloca.h>
#include <execinfo.h>

#include "shim/shim.h"
#include "shim/stack.h"
#include "../unit.h"

static int mismatches;
static int limit = CL_MAX_FRAMES; /* the frames probe asks for */

__attribute__((noinline)) static void probe(void)
{
  uint64_t a[CL_MAX_FRAMES];
  void *b[CL_MAX_FRAMES + 1];
  int na = cl_stack_capture(a, limit);
  int nb = backtrace(b, CL_MAX_FRAMES + 1);
  /* a[0] and b[0] are two places in probe(); the callers must agree */
  int n = na < nb ? na : nb;
  for (int i = 1; i < n; i++)
    if (a[i] != (uint64_t)(uintptr_t)b[i]) {
      mismatches++;
      return;
    }
  if (na < 4 || (limit < CL_MAX_FRAMES && na != limit))
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

/* ---- call sites at fixed depths, alternating */
/* (chain, SITE, outer_a and outer_b: stack_sites.h) */
#include "stack_sites.h"
SITE(site0)
SITE(site1)
SITE(site2)
SITE(site3)
#define NSITES 4
static void (*volatile sites[NSITES])(int) = {site0, site1, site2, site3};
static const int site_depth[NSITES] = {8, 8, 8, 11};

__attribute__((noinline)) static void dispatch(int i)
{
  sites[i % NSITES](site_depth[i % NSITES]);
  __asm__ volatile("" ::: "memory");
}

/* WALKS walks, site after site, through outer_a (WHICH 0), outer_b (1),
 * each in turn for a round of the sites (2), each site through one then
 * the other (3), or through outer_a asking for 6 frames every other round
 * (4); the frames walked by rules a walk */
static double run_sites(int which, int walks)
{
  void (*volatile outer[2])(int) = {outer_a, outer_b};
  unsigned long steps = cl_stack_rule_steps();
  for (int i = 0; i < walks; i++) {
    limit = which == 4 && (i / NSITES) & 1 ? 6 : CL_MAX_FRAMES;
    if (which < 3 || which == 4)
      outer[which < 2 ? which : which == 4 ? 0 : (i / NSITES) & 1](i);
    else
      outer[i & 1](i / 2);
  }
  limit = CL_MAX_FRAMES;
  return (double)(cl_stack_rule_steps() - steps) / walks;
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

  CHECK(sites[0] != sites[1] && sites[1] != sites[2]); /* not folded */
  /* (run_sites called from one place: main's return address is learned
   * once, and the rules then stay as they are) */
  static const struct {
    int which, walks;
    const char *what;
  } runs[] = {
      {0, 4 * NSITES, "through one caller, first 4 rounds"},
      {0, 200 * NSITES, "through one caller, next 200"},
      {1, NSITES, "through the other caller, first round"},
      {1, 200 * NSITES, "through the other caller, next 200"},
      {2, 400 * NSITES, "through each caller in turn, 400 rounds"},
      {3, 800 * NSITES, "each through one caller then the other, 400 rounds"},
      {4, 4 * NSITES, "through one caller, 6 frames a round in two, first 4"},
      {4, 400 * NSITES,
       "through one caller, 6 frames a round in two, next 400"},
  };
  double per_walk[8];
  for (int r = 0; r < 8; r++) {
    mismatches = 0;
    per_walk[r] = run_sites(runs[r].which, runs[r].walks);
    printf("%d mismatching walks; 4 sites %s: %.2f frames walked by rules "
           "a walk\n", mismatches, runs[r].what, per_walk[r]);
    CHECK(mismatches == 0);
  }
  /* what one remembered walk left: a walk through the whole stack */
  CHECK(per_walk[0] > 5);
  CHECK(per_walk[1] < 0.5);
  CHECK(per_walk[2] > 5); /* a word near the stack's end changed */
  CHECK(per_walk[3] < 0.5);
  CHECK(per_walk[4] < 0.5);
  CHECK(per_walk[5] < 0.5);
  CHECK(per_walk[7] < 0.5); /* a walk cut at 6 frames remembered apart */
  UNIT_DONE();
}

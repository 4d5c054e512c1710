/* stack_sites.c - native stack walks (shim/stack.c) from call sites that
 * alternate, for callgrind (bench/README.md, "Walks from several call
 * sites"): N walks of cl_stack_capture from one site (MODE one), or from
 * four sites, three at one depth, each reached through one outer caller
 * then another in turn (MODE sites: eight stacks that differ in a return
 * address near the walk's start or near its end), as a training step
 * calls CUDA from its layers.  Prints the frames walked by rules a walk.
 *   bench/stack_sites MODE N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/shim.h"
#include "shim/stack.h"

static unsigned long frames_found;

__attribute__((noinline)) static void probe(void)
{
  uint64_t f[CL_MAX_FRAMES];
  frames_found += (unsigned long)cl_stack_capture(f, CL_MAX_FRAMES);
}

__attribute__((noinline)) static void chain(int depth)
{
  if (depth == 0) {
    probe();
    return;
  }
  chain(depth - 1);
  __asm__ volatile("" ::: "memory"); /* not a tail call */
}

#define SITE(name)                                                             \
  __attribute__((noinline)) static void name(int depth)                        \
  {                                                                            \
    chain(depth);                                                              \
    __asm__ volatile("" ::: "memory");                                         \
  }
SITE(site0)
SITE(site1)
SITE(site2)
SITE(site3)
#define NSITES 4
static void (*volatile sites[NSITES])(int) = {site0, site1, site2, site3};
static const int site_depth[NSITES] = {20, 20, 20, 24};

__attribute__((noinline)) static void dispatch(int i)
{
  sites[i % NSITES](site_depth[i % NSITES]);
  __asm__ volatile("" ::: "memory");
}
__attribute__((noinline)) static void outer_a(int i)
{
  dispatch(i);
  __asm__ volatile("" ::: "memory");
}
__attribute__((noinline)) static void outer_b(int i)
{
  dispatch(i);
  __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
  if (argc != 3 || (strcmp(argv[1], "one") && strcmp(argv[1], "sites"))) {
    fprintf(stderr, "usage: stack_sites one|sites N\n");
    return 2;
  }
  int one = !strcmp(argv[1], "one"), n = atoi(argv[2]);
  void (*volatile outer[2])(int) = {outer_a, outer_b};
  for (int i = 0; i < n; i++)
    outer[one ? 0 : (i / NSITES) & 1](one ? 0 : i);
  printf("%d walks, %.2f frames a walk, %.2f walked by rules a walk, %lu by "
         "libgcc\n", n, (double)frames_found / n,
         (double)cl_stack_rule_steps() / n, cl_stack_slow_walks());
  return 0;
}

/* stack_sites.c - native stack walks (shim/stack.c) from call sites that
 * alternate, for callgrind (bench/README.md, "Walks from several call
 * sites"): N walks of cl_stack_capture from one site (MODE one), or from
 * SITES sites (default 4, at most 12; most at one depth), each reached
 * through one outer caller then another in turn (MODE sites: 2 x SITES
 * stacks that differ in a return address near the walk's start or near
 * its end), as a training step calls CUDA from its layers.  Prints the
 * frames walked by rules a walk.
 *   bench/stack_sites MODE N [SITES] */
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

/* (chain, SITE, outer_a and outer_b: the unit test's, stack_sites.h) */
#include "tests/unit/shim/stack_sites.h"
SITE(site0)
SITE(site1)
SITE(site2)
SITE(site3)
SITE(site4)
SITE(site5)
SITE(site6)
SITE(site7)
SITE(site8)
SITE(site9)
SITE(site10)
SITE(site11)
#define MAX_SITES 12
static void (*volatile sites[MAX_SITES])(int) = {
    site0, site1, site2, site3, site4,  site5,
    site6, site7, site8, site9, site10, site11};
static const int site_depth[MAX_SITES] = {20, 20, 20, 24, 20, 21,
                                          22, 20, 20, 23, 20, 20};
static int nsites = 4;

__attribute__((noinline)) static void dispatch(int i)
{
  sites[i % nsites](site_depth[i % nsites]);
  __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
  if (argc < 3 || argc > 4 ||
      (strcmp(argv[1], "one") && strcmp(argv[1], "sites")) ||
      (argc == 4 && (atoi(argv[3]) < 1 || atoi(argv[3]) > MAX_SITES))) {
    fprintf(stderr, "usage: stack_sites one|sites N [SITES, 1-12]\n");
    return 2;
  }
  int one = !strcmp(argv[1], "one"), n = atoi(argv[2]);
  if (argc == 4)
    nsites = atoi(argv[3]);
  void (*volatile outer[2])(int) = {outer_a, outer_b};
  for (int i = 0; i < n; i++)
    outer[one ? 0 : (i / nsites) & 1](one ? 0 : i);
  printf("%d walks, %.2f frames a walk, %.2f walked by rules a walk, %lu by "
         "libgcc\n", n, (double)frames_found / n,
         (double)cl_stack_rule_steps() / n, cl_stack_slow_walks());
  return 0;
}

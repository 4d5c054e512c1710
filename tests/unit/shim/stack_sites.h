/* stack_sites.h - call sites at fixed depths for walks of the native stack
 * (shim/stack.c), shared by tests/unit/shim/test_stack.c and
 * bench/stack_sites.c: chain(DEPTH) calls probe() DEPTH frames further
 * down; SITE(name) defines a site that calls chain; outer_a and outer_b,
 * two callers with the same frame, call dispatch(), so that their stacks
 * differ only in dispatch's return address.  The includer defines probe()
 * before and dispatch() after (declared here).  Compile with -O1
 * -fno-omit-frame-pointer, as both do. */
#ifndef CUDALENS_TESTS_STACK_SITES_H
#define CUDALENS_TESTS_STACK_SITES_H

static void dispatch(int i);

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
#endif

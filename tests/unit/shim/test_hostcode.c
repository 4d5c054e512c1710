/* test_hostcode.c - unit test of the host-code snapshot (shim/hostcode.c)
 * by which the recorder tells a by-value kernel structure that holds a
 * return address (not fully initialized): a function of this program and
 * one of the C library are host code; the stack, the heap and small
 * integers are not; a second call within the same millisecond gives the
 * same snapshot. */
#include <stdio.h>
#include <stdlib.h>

#include "shim/hostcode.h"
#include "../unit.h"

static int local_function(int x)
{
  return x + 1;
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
  free(on_heap);
  UNIT_DONE();
}

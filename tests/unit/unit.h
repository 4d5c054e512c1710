/* unit.h - the few assertion macros the C unit tests share.  A failed check
 * prints file:line and the expression and makes the test exit 1. */
#ifndef CUDALENS_UNIT_H
#define CUDALENS_UNIT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failures;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      unit_failures++;                                                         \
    }                                                                          \
  } while (0)
#define CHECK_STR(a, b)                                                        \
  do {                                                                         \
    const char *a_ = (a), *b_ = (b);                                           \
    if (strcmp(a_, b_)) {                                                      \
      fprintf(stderr, "%s:%d: '%s' != '%s'\n", __FILE__, __LINE__, a_, b_);    \
      unit_failures++;                                                         \
    }                                                                          \
  } while (0)
#define UNIT_DONE() return unit_failures ? 1 : 0
#endif

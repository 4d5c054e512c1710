/* unit.h - the assertion macros of every C test program (tests/unit).
 * A failed check prints file:line, the expression and the message, if any
 * (CHECK(cond) or CHECK(cond, "format", ...), the format a string literal);
 * the test goes on, and ends with UNIT_DONE(): exit 1 if any check failed. */
#ifndef CUDALENS_UNIT_H
#define CUDALENS_UNIT_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failures;
/* the message of a failed check: "\n" followed by CHECK's format, if any
 * (not empty: an empty format is a warning of -Wall) */
__attribute__((format(printf, 1, 2), unused)) static void
unit_message_(const char *fmt, ...)
{
  va_list ap;
  if (fmt[1]) {
    fputs(": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt + 1, ap);
    va_end(ap);
  }
  fputc('\n', stderr);
}
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s", __FILE__, __LINE__, #cond);   \
      unit_message_("\n" __VA_ARGS__);                                         \
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

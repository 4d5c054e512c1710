/* sanitizers.c - what the shim tells a sanitizer's runtime in the program.
 *
 * A program built with -fsanitize=thread runs ThreadSanitizer, which sees
 * the shim's memory accesses only where they go through a function it
 * intercepts: the shim is not instrumented.  A record that the program's
 * thread fills (snprintf) and the writer reads (strlen), ordered by the
 * ring's atomics, which it cannot see, is a data race to it, and its
 * reports change the program's exit status (66).  It asks the process for
 * default suppressions (__tsan_default_suppressions: a weak hook, defined
 * by the program if it has its own, else by the first library that does,
 * which a preloaded one is before ThreadSanitizer's runtime): the calls
 * the shim's two libraries make to intercepted functions are not looked
 * at.  A program that defines the hook itself keeps its own. */
#include "shim.h"

CL_EXPORT const char *__tsan_default_suppressions(void);
CL_EXPORT const char *__tsan_default_suppressions(void)
{
  /* (two names: one that matched both libraries would stop the program) */
  return "called_from_lib:libcudalens.so\n"
         "called_from_lib:libcudalens-sqlite.so\n";
}

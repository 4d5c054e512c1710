/* location.h - a place in the user's program as findings name it (file,
 * line, function, or module+offset), where it came from in the recording,
 * and the frames that called it.  Call sites make them
 * (callsite_location); findings and the renderings keep and print them. */
#ifndef CL_REPORT_LOCATION_H
#define CL_REPORT_LOCATION_H

#include <stddef.h>
#include <stdint.h>

/* a place in the user's program; every field may be NULL / 0 */
struct location {
  char *file;
  int line;
  char *function;
  char *module;     /* path of the object, for locations without a file */
  uint64_t offset;  /* address - load bias inside module */
  /* where the place came from (callsite_location): frame STACK_FRAME of
   * the recording's stack STACK_ID (has_stack), or frame PY_FRAME of the
   * Python stack PYSTACK_ID (from_python); for --stack */
  int has_stack, from_python;
  int64_t stack_id, pystack_id;
  int stack_frame, py_frame;
  /* --stack=N: the frames that called it, innermost first (up to N - 1;
   * callsite_fill_callers); their own callers are empty */
  struct location *callers;
  size_t ncallers;
};

void location_copy(struct location *dst, const struct location *src);
void location_free(struct location *loc);

/* A location as reports print it: "file:line", "file", "module+0xoffset"
 * or "<unknown>" (every output, and suppressions' at= field, share it);
 * BUF of at least 64 bytes, may return a pointer into LOC */
const char *location_text(char *buf, size_t len, const struct location *loc);

#endif

/* callsite.h - the user's call site of a recorded CUDA call: the frame of
 * its stack (stacks.frames, innermost first) that belongs to the user's
 * program rather than to CUDA, vendor, framework or system libraries (or to
 * a statically linked cudart inside the program), symbolized to
 * file:line and function.  Results are cached per stack id. */
#ifndef CL_REPORT_CALLSITE_H
#define CL_REPORT_CALLSITE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "findings.h"
#include "symbolize.h"

struct callsite {
  const char *file;     /* source file, NULL without line info */
  int line;             /* 0 without line info */
  const char *function; /* demangled, NULL if unknown */
  const char *module;   /* path of the object, NULL if unknown */
  uint64_t offset;      /* address - module bias ("module+0xoffset") */
  uint64_t address;     /* the recorded return address */
  int frame;            /* index in the stack (0 = innermost), -1: none */
};

struct callsites;

/* reads stacks and modules of DB lazily; DB must outlive the result */
struct callsites *callsites_new(sqlite3 *db);
void callsites_free(struct callsites *cs);

/* Fill *OUT with the user's frame of stack STACK_ID (calls.stack).
 * Returns 0, or -1 when the stack is absent or has no user frame (then
 * *OUT is zeroed with frame = -1).  Strings live as long as CS. */
int callsite_resolve(struct callsites *cs, int64_t stack_id,
                     struct callsite *out);

/* All frames of a stack, innermost first, symbolized; NULL/0 when absent.
 * The array lives as long as CS. */
const struct sym_frame *const *callsite_stack(struct callsites *cs,
                                              int64_t stack_id, size_t *n);

/* A findings location for a call site (borrowed strings: findings_add and
 * finding_add_related copy them). */
struct location callsite_location(const struct callsite *c);

/* The rules, exposed for tests and for other analyses. */
bool callsite_vendor_module(const char *path);
bool callsite_vendor_function(const char *name);

#endif

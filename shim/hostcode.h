/* hostcode.h - the host's executable code: which addresses are in the text
 * of a loaded object (hostcode.c). */
#ifndef CUDALENS_SHIM_HOSTCODE_H
#define CUDALENS_SHIM_HOSTCODE_H

#include "shim.h"

struct cl_hostcode;
/* The executable segments of the loaded objects, as of at most a
 * millisecond ago (or of the last check when the loader lists nothing
 * new): an immutable snapshot, valid for the life of the process, or NULL
 * when none could be read. */
const struct cl_hostcode *cl_hostcode_now(void) CL_HIDDEN;
/* Is V an address in host code of snapshot CODE? */
int cl_hostcode_has(const struct cl_hostcode *code, uint64_t v) CL_HIDDEN;
/* The bounds of CODE's segments, [*lo, *lo + *span), and the widest
 * space between two of them, [*gap_lo, *gap_lo + *gap_span) (*gap_span 0:
 * none): no word outside the one or inside the other is in host code (a
 * caller's tests before cl_hostcode_has, in one comparison each: v - lo <
 * span, v - gap_lo >= gap_span). */
void cl_hostcode_bounds(const struct cl_hostcode *code, uint64_t *lo,
                        uint64_t *span, uint64_t *gap_lo,
                        uint64_t *gap_span) CL_HIDDEN;
/* A snapshot of the N segments [LO[i], HI[i]) (any order), as
 * cl_hostcode_now makes of the loaded objects' (for the unit test); NULL
 * when N is 0 or memory is short. */
const struct cl_hostcode *cl_hostcode_make(const uint64_t *lo,
                                           const uint64_t *hi, size_t n) CL_HIDDEN;
void cl_hostcode_atfork_prepare(void) CL_HIDDEN;
void cl_hostcode_atfork_parent(void) CL_HIDDEN;
void cl_hostcode_atfork_child(void) CL_HIDDEN;

#endif

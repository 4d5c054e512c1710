/* protmap.h - the protection the host check gave each page (protmap.c), so
 * that it calls mprotect only where a page's protection changes. */
#ifndef CUDALENS_SHIM_PROTMAP_H
#define CUDALENS_SHIM_PROTMAP_H

#include <stdint.h>

#include "shim.h"

/* protection given, but not known which (a handler changed it, or mprotect
 * failed) */
#define CL_PROT_UNKNOWN (-1)
/* ranges held at most; more, and everything is forgotten */
#define CL_PROTMAP_MAX 2048

/* every page of [a, b) has protection prot from the shim */
int cl_protmap_is(uint64_t a, uint64_t b, int prot) CL_HIDDEN;
/* every page of [a, b) is known protected at least as strictly as a guard
 * of that level (readonly: PROT_READ; else PROT_NONE) needs */
int cl_protmap_covers(uint64_t a, uint64_t b, int readonly) CL_HIDDEN;
/* the shim gave [a, b) protection prot (or CL_PROT_UNKNOWN) */
void cl_protmap_set(uint64_t a, uint64_t b, int prot) CL_HIDDEN;
/* nothing is known: every question answers no until cl_protmap_relearn,
 * which the caller makes once no page is protected by the shim */
void cl_protmap_forget(void) CL_HIDDEN;
void cl_protmap_relearn(void) CL_HIDDEN;
/* the ranges held (tests/unit/shim/test_protmap.c) */
int cl_protmap_ranges(void) CL_HIDDEN;

#endif

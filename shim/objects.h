/* objects.h - what a loaded object maps, from the dl_phdr_info that
 * dl_iterate_phdr (or cl_loaded_walk, cudaload.h) hands over: its file's
 * name, the bounds of its loadable segments, its executable segments; and
 * spans of addresses to look an address up in (objects.c). */
#ifndef CUDALENS_SHIM_OBJECTS_H
#define CUDALENS_SHIM_OBJECTS_H

#include <stddef.h>

#include "shim.h"

struct dl_phdr_info;

/* [lo, hi) */
struct cl_span {
  uint64_t lo, hi;
};

/* is ADDR in one of the N spans V? */
static inline int cl_span_has(const struct cl_span *v, size_t n, uint64_t addr)
{
  for (size_t i = 0; i < n; i++)
    if (addr >= v[i].lo && addr < v[i].hi)
      return 1;
  return 0;
}

/* INFO's file name without its directories ("" for the main program) */
const char *cl_object_name(const struct dl_phdr_info *info) CL_HIDDEN;
/* does INFO map ADDR (in one of its loadable segments)? */
int cl_object_holds(const struct dl_phdr_info *info, uint64_t addr) CL_HIDDEN;
/* 1 and, in *B, the span from INFO's first loadable byte to its last; 0
 * when it has no loadable segment */
int cl_object_bounds(const struct dl_phdr_info *info, struct cl_span *b)
    CL_HIDDEN;
/* INFO's executable segments (those with bytes) appended to V at *N, *N
 * advanced; 0, or, when they do not all fit in MAX, how many did not (the
 * ones that fit are appended) */
size_t cl_object_exec(const struct dl_phdr_info *info, struct cl_span *v,
                      size_t *n, size_t max) CL_HIDDEN;

#endif

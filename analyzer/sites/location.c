/* location.c - the places of location.h: copied, freed, printed. */
#include "sites/location.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void location_copy(struct location *dst, const struct location *src)
{
  memset(dst, 0, sizeof *dst);
  if (!src)
    return;
  *dst = *src;
  dst->file = xstrdup(src->file);
  dst->function = xstrdup(src->function);
  dst->module = xstrdup(src->module);
  dst->callers = NULL;
  dst->ncallers = 0;
  if (src->ncallers) {
    dst->callers = xcalloc(src->ncallers, sizeof *dst->callers);
    for (size_t i = 0; i < src->ncallers; i++)
      location_copy(&dst->callers[i], &src->callers[i]);
    dst->ncallers = src->ncallers;
  }
}

void location_free(struct location *loc)
{
  free(loc->file);
  free(loc->function);
  free(loc->module);
  for (size_t i = 0; i < loc->ncallers; i++)
    location_free(&loc->callers[i]);
  free(loc->callers);
  memset(loc, 0, sizeof *loc);
}

const char *location_text(char *buf, size_t len, const struct location *loc)
{
  if (loc->file && loc->line > 0)
    snprintf(buf, len, "%s:%d", loc->file, loc->line);
  else if (loc->file)
    snprintf(buf, len, "%s", loc->file);
  else if (loc->module)
    snprintf(buf, len, "%s+0x%" PRIx64, path_base(loc->module), loc->offset);
  else
    snprintf(buf, len, "<unknown>");
  return buf;
}

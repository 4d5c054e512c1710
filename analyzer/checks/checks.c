/* checks.c - the registry of finding kinds (checks.def) as a table. */
#include "checks/checks.h"

#include <string.h>

static const struct check_info table[CHECK_COUNT] = {
#define CHECK(id, kind, sev, title, ref, help)                                 \
  [CHECK_##id] = {kind, sev, title, ref, help},
#include "checks/checks.def"
#undef CHECK
};

const struct check_info *check_info(enum check_id id)
{
  return &table[id < CHECK_COUNT ? id : 0];
}

int check_by_kind(const char *kind)
{
  for (int i = 0; kind && i < CHECK_COUNT; i++)
    if (strcmp(table[i].kind, kind) == 0)
      return i;
  return -1;
}

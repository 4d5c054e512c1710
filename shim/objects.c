/* objects.c - what a loaded object maps (objects.h): its program headers'
 * loadable (PT_LOAD) segments, at the object's load bias. */
#define _GNU_SOURCE
#include <link.h>
#include <string.h>

#include "objects.h"

const char *cl_object_name(const struct dl_phdr_info *info)
{
  const char *path = info->dlpi_name ? info->dlpi_name : "";
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* the span of INFO's I-th program header */
static struct cl_span segment(const struct dl_phdr_info *info, int i)
{
  uint64_t lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
  return (struct cl_span){lo, lo + info->dlpi_phdr[i].p_memsz};
}

int cl_object_holds(const struct dl_phdr_info *info, uint64_t addr)
{
  for (int i = 0; i < info->dlpi_phnum; i++) {
    struct cl_span s = segment(info, i);
    if (info->dlpi_phdr[i].p_type == PT_LOAD && addr >= s.lo && addr < s.hi)
      return 1;
  }
  return 0;
}

int cl_object_bounds(const struct dl_phdr_info *info, struct cl_span *b)
{
  *b = (struct cl_span){UINT64_MAX, 0};
  for (int i = 0; i < info->dlpi_phnum; i++) {
    if (info->dlpi_phdr[i].p_type != PT_LOAD)
      continue;
    struct cl_span s = segment(info, i);
    if (s.lo < b->lo)
      b->lo = s.lo;
    if (s.hi > b->hi)
      b->hi = s.hi;
  }
  return b->lo < b->hi;
}

size_t cl_object_exec(const struct dl_phdr_info *info, struct cl_span *v,
                      size_t *n, size_t max)
{
  size_t left = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !ph->p_memsz)
      continue;
    if (*n < max)
      v[(*n)++] = segment(info, i);
    else
      left++;
  }
  return left;
}

/* buildid.c - cl_build_id(): the GNU build id note of a loaded object,
 * read from its PT_NOTE segments in memory. */
#define _GNU_SOURCE
#include "cudalens/buildid.h"

#include <elf.h>
#include <string.h>

void cl_build_id(const struct dl_phdr_info *info, char *out)
{
  out[0] = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
    const char *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
      const char *name = p + sizeof *nh;
      const unsigned char *desc =
          (const unsigned char *)(name + ((nh->n_namesz + 3) & ~3u));
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
          !memcmp(name, "GNU", 4)) {
        static const char hex[] = "0123456789abcdef";
        unsigned len = nh->n_descsz > 20 ? 20 : nh->n_descsz;
        for (unsigned k = 0; k < len; k++) {
          out[2 * k] = hex[desc[k] >> 4];
          out[2 * k + 1] = hex[desc[k] & 15];
        }
        out[2 * len] = 0;
        return;
      }
      p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
}

/* startup_layout.c - prints what the preloaded libcudalens.so costs every
 * process at start-up in the loader's terms, for tests/capture/startup.test
 * (issue 24, item 10): the size of its static thread-local storage (cleared
 * for every thread of every process) and of its relocated read-only data
 * (GNU_RELRO: copied on write, page by page, in every process), read from
 * its program headers in this process.  Uses no CUDA.
 *
 *   LD_PRELOAD=.../libcudalens.so startup_layout
 *   -> "tls BYTES relro BYTES", or "no libcudalens.so" (exit 1) */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <string.h>

struct found {
  int seen;
  unsigned long tls, relro;
};

static int look(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  struct found *f = arg;
  const char *slash = strrchr(info->dlpi_name, '/');
  const char *base = slash ? slash + 1 : info->dlpi_name;
  if (strcmp(base, "libcudalens.so"))
    return 0;
  f->seen = 1;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_TLS)
      f->tls = ph->p_memsz;
    else if (ph->p_type == PT_GNU_RELRO)
      f->relro = ph->p_memsz;
  }
  return 1;
}

int main(void)
{
  struct found f = {0, 0, 0};
  dl_iterate_phdr(look, &f);
  if (!f.seen) {
    puts("no libcudalens.so");
    return 1;
  }
  printf("tls %lu relro %lu\n", f.tls, f.relro);
  return 0;
}

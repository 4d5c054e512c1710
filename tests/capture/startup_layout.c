/* startup_layout.c - prints what the preloaded libcudalens.so costs every
 * process at start-up in the loader's terms, for tests/capture/startup.test
 * (issue 24, item 10): the size of its static thread-local storage (cleared
 * for every thread of every process) and of its relocated read-only data
 * (GNU_RELRO: copied on write, page by page, in every process), read from
 * its program headers in this process.  And, from /proc/self/pagemap,
 * what the start-up faulted in (a fault maps the pages of its window, 64
 * KiB or more, that are in the page cache): whether the last page of its
 * code (where the linker puts _fini and libc_nonshared's stubs, after all
 * the shim's code) is present, and how many pages of its read-only data
 * (.rodata, .eh_frame) are.  Calls nothing the shim wraps (pread is: its
 * wrapper's lookup reads the name from .rodata; hence syscall()).  Uses
 * no CUDA.
 *
 *   LD_PRELOAD=.../libcudalens.so startup_layout
 *   -> "tls BYTES relro BYTES codeend 0|1 rodata PAGES" (-1: pagemap
 *      unreadable), or "no libcudalens.so" (exit 1) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct found {
  int seen;
  unsigned long tls, relro;
  uintptr_t code[2], rodata[2]; /* [start, end) */
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
    else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      f->code[0] = info->dlpi_addr + ph->p_vaddr;
      f->code[1] = f->code[0] + ph->p_memsz;
    } else if (ph->p_type == PT_LOAD && ph->p_flags == PF_R &&
               ph->p_offset) { /* not the headers' */
      f->rodata[0] = info->dlpi_addr + ph->p_vaddr;
      f->rodata[1] = f->rodata[0] + ph->p_memsz;
    }
  }
  return 1;
}

/* pages of [start, end) present in this process; -1 when pagemap cannot
 * be read */
static long present(int fd, uintptr_t start, uintptr_t end)
{
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  long n = 0;
  for (uintptr_t a = start & ~(page - 1); a < end; a += page) {
    uint64_t e;
    if (syscall(SYS_pread64, fd, &e, sizeof e, (off_t)(a / page * 8)) !=
        (long)sizeof e)
      return -1;
    n += e >> 63 & 1; /* present */
  }
  return n;
}

int main(void)
{
  struct found f = {0};
  dl_iterate_phdr(look, &f);
  if (!f.seen) {
    puts("no libcudalens.so");
    return 1;
  }
  int fd = open("/proc/self/pagemap", O_RDONLY);
  long end = fd < 0 ? -1 : present(fd, f.code[1] - 1, f.code[1]);
  long rodata = fd < 0 ? -1 : present(fd, f.rodata[0], f.rodata[1]);
  printf("tls %lu relro %lu codeend %ld rodata %ld\n", f.tls, f.relro, end,
         rodata);
  return 0;
}

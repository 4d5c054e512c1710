/* stack.c - records the return-address chain of a CUDA call.  Frames inside
 * libcudalens and CUPTI are left out; frames inside the driver and the
 * runtime are kept and skipped later by cudalens-report, which resolves the
 * addresses to function, file and line.  The walk stops at the first frame
 * inside the C library (thread start, process start, a libc callback): the
 * user's innermost frames are below it, and unwinding past the outermost
 * frames is the slowest part of a walk. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <unwind.h>

#include "shim.h"

static uintptr_t self_start, self_end;
/* [lo, hi) ranges skipped (CUPTI) and where the walk stops (libc) */
struct span {
  uintptr_t lo, hi;
};
#define MAX_SPANS 8
static struct span skip[MAX_SPANS], stop[MAX_SPANS];
static int nskip, nstop;

static int add_spans(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  (void)arg;
  const char *base = strrchr(info->dlpi_name, '/');
  base = base ? base + 1 : info->dlpi_name;
  int is_libc = !strncmp(base, "libc.so", 7);
  int is_cupti = !strncmp(base, "libcupti.so", 11);
  if (!is_libc && !is_cupti)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
      continue;
    struct span sp = {info->dlpi_addr + ph->p_vaddr,
                      info->dlpi_addr + ph->p_vaddr + ph->p_memsz};
    if (is_libc && nstop < MAX_SPANS)
      stop[nstop++] = sp;
    if (is_cupti && nskip < MAX_SPANS)
      skip[nskip++] = sp;
  }
  return 0;
}

static int in_spans(const struct span *v, int n, uintptr_t ip)
{
  for (int i = 0; i < n; i++)
    if (ip >= v[i].lo && ip < v[i].hi)
      return 1;
  return 0;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  uintptr_t probe = (uintptr_t)arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t a = info->dlpi_addr + ph->p_vaddr;
    if (probe >= a && probe < a + ph->p_memsz) {
      for (int j = 0; j < info->dlpi_phnum; j++) {
        const ElfW(Phdr) *q = &info->dlpi_phdr[j];
        if (q->p_type != PT_LOAD)
          continue;
        uintptr_t s = info->dlpi_addr + q->p_vaddr, e = s + q->p_memsz;
        if (!self_start || s < self_start)
          self_start = s;
        if (e > self_end)
          self_end = e;
      }
      return 1;
    }
  }
  return 0;
}

void cl_stack_init(void)
{
  dl_iterate_phdr(find_self, (void *)(uintptr_t)&cl_stack_init);
  dl_iterate_phdr(add_spans, NULL); /* CUPTI is loaded by now */
}

struct walk {
  uint64_t *frames;
  int n, max;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
  struct walk *w = arg;
  uintptr_t ip = _Unwind_GetIP(ctx);
  if (!ip)
    return _URC_END_OF_STACK;
  if ((ip >= self_start && ip < self_end) || in_spans(skip, nskip, ip))
    return _URC_NO_REASON;
  if (in_spans(stop, nstop, ip))
    return _URC_END_OF_STACK;
  w->frames[w->n++] = ip;
  return w->n < w->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

int cl_stack_capture(uint64_t *frames, int max)
{
  if (max <= 0)
    return 0;
  struct walk w = {frames, 0, max};
  _Unwind_Backtrace(step, &w);
  return w.n;
}

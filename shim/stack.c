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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unwind.h>

#include "selftime.h"
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

/* ---- the walk -------------------------------------------------------------
 * libgcc's unwinder interprets the DWARF CFI of every frame, which costs
 * microseconds per call through the driver.  The shim therefore learns, per
 * return address, the distance from a frame's stack pointer to its
 * canonical frame address (constant at a call site unless the function uses
 * alloca), and later walks follow those distances directly, reading each
 * return address from CFA - 8.  A walk that meets an address it has not
 * learned, or learned as variable, falls back to libgcc; every 1024th walk
 * of a thread is done by libgcc anyway and checks what was learned.  Reads
 * stay inside the thread's stack.
 *
 * What is learned is the same for every thread (it belongs to the code), so
 * one table serves the process: 64k slots (512 KiB, allocated at the first
 * walk), each one 64-bit word read and written atomically: the address in
 * the low 48 bits, the distance in 8-byte units in the next 14, the state
 * in the top 2.  A PyTorch process returns through thousands of distinct
 * addresses; a per-thread table of 1024 filled up and sent most walks to
 * libgcc (5 us a call on an H100, bench/README.md). */
#define LEARNED (1u << 16)
#define PROBES 32
enum { CFA_UNKNOWN = 0, CFA_CONST, CFA_VARIABLE };
#define SLOT_IP(w) ((w) & ((1ull << 48) - 1))
#define SLOT_K(w) ((intptr_t)(((w) >> 48) & 0x3fff) * 8)
#define SLOT_STATE(w) ((unsigned)((w) >> 62))
#define SLOT(ip, k, state)                                                     \
  ((uint64_t)(ip) | ((uint64_t)((k) / 8) << 48) | ((uint64_t)(state) << 62))
static _Atomic(_Atomic uint64_t *) learned;
static __thread unsigned walks;
static __thread uintptr_t stack_lo, stack_hi;

static _Atomic uint64_t *learned_table(void)
{
  _Atomic uint64_t *t = atomic_load_explicit(&learned, memory_order_acquire);
  if (t)
    return t;
  _Atomic uint64_t *fresh = calloc(LEARNED, sizeof *fresh);
  if (!fresh)
    return NULL;
  if (!atomic_compare_exchange_strong(&learned, &t, fresh)) {
    free(fresh); /* another thread was first: t is its table */
    return t;
  }
  return fresh;
}

static unsigned slot_hash(uintptr_t ip)
{
  return (unsigned)(((uint64_t)ip * 0x9e3779b97f4a7c15ull) >> 48) & (LEARNED - 1);
}

/* The learned word of ip, or 0. */
static uint64_t rule_of(_Atomic uint64_t *t, uintptr_t ip)
{
  unsigned h = slot_hash(ip);
  for (unsigned k = 0; k < PROBES; k++) {
    uint64_t w = atomic_load_explicit(&t[(h + k) & (LEARNED - 1)],
                                      memory_order_relaxed);
    if (!w)
      return 0;
    if (SLOT_IP(w) == ip)
      return w;
  }
  return 0;
}

static void learn(uintptr_t ip, intptr_t k)
{
  _Atomic uint64_t *t = atomic_load_explicit(&learned, memory_order_relaxed);
  if (!t || k <= 0 || k % 8 || k / 8 > 0x3fff || ip >> 48)
    return; /* not representable: walks through ip use libgcc */
  unsigned h = slot_hash(ip);
  for (unsigned n = 0; n < PROBES; n++) {
    _Atomic uint64_t *slot = &t[(h + n) & (LEARNED - 1)];
    uint64_t w = atomic_load_explicit(slot, memory_order_relaxed);
    for (;;) {
      if (!w) {
        if (atomic_compare_exchange_weak(slot, &w, SLOT(ip, k, CFA_CONST)))
          return;
        continue; /* w now holds what another thread put there */
      }
      if (SLOT_IP(w) != ip)
        break; /* the next slot */
      if (SLOT_STATE(w) == CFA_CONST && SLOT_K(w) != k)
        atomic_store_explicit(slot, SLOT(ip, 0, CFA_VARIABLE),
                              memory_order_relaxed);
      return;
    }
  }
  /* crowded: not learned */
}

struct walk {
  uint64_t *frames;
  int n, max;
  uintptr_t prev_ip, prev_sp;
};

/* libgcc hands each frame's IP with the CFA of the frame it called, which is
 * this frame's stack pointer at the call: the rule of the previous frame is
 * the distance between the two. */
static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
  struct walk *w = arg;
  uintptr_t ip = _Unwind_GetIP(ctx), sp = _Unwind_GetCFA(ctx);
  if (!ip)
    return _URC_END_OF_STACK;
  int first = !w->prev_ip; /* cl_stack_capture itself */
  if (!first)
    learn(w->prev_ip, (intptr_t)(sp - w->prev_sp));
  w->prev_ip = ip;
  w->prev_sp = sp;
  if (first || (ip >= self_start && ip < self_end) ||
      in_spans(skip, nskip, ip))
    return _URC_NO_REASON;
  if (in_spans(stop, nstop, ip))
    return _URC_END_OF_STACK;
  w->frames[w->n++] = ip;
  return w->n < w->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/* Follow learned rules from (ip, sp); -1 when a rule is missing. */
static int fast_walk(_Atomic uint64_t *t, uintptr_t ip, uintptr_t sp,
                     uint64_t *frames, int max)
{
  int n = 0;
  while (ip && n < max) {
    if (in_spans(stop, nstop, ip))
      return n;
    if (!((ip >= self_start && ip < self_end) || in_spans(skip, nskip, ip)))
      frames[n++] = ip;
    if (n == max)
      return n;
    uint64_t w = rule_of(t, ip);
    if (SLOT_STATE(w) != CFA_CONST)
      return -1;
    uintptr_t cfa = sp + (uintptr_t)SLOT_K(w);
    if (cfa - 8 < stack_lo || cfa > stack_hi)
      return -1;
    ip = *(const uintptr_t *)(cfa - 8);
    sp = cfa;
  }
  return n;
}

static void find_stack_bounds(void)
{
  pthread_attr_t attr;
  void *addr;
  size_t size;
  stack_hi = 1; /* tried */
  if (pthread_getattr_np(pthread_self(), &attr))
    return;
  if (!pthread_attr_getstack(&attr, &addr, &size)) {
    stack_lo = (uintptr_t)addr;
    stack_hi = (uintptr_t)addr + size;
  }
  pthread_attr_destroy(&attr);
}

__attribute__((noinline)) int cl_stack_capture(uint64_t *frames, int max)
{
  if (max <= 0)
    return 0;
  if (!stack_hi)
    find_stack_bounds();
  _Atomic uint64_t *t = learned_table();
  if (t && stack_lo && (walks++ & 1023)) {
    /* this frame keeps a frame pointer (we ask for its address) */
    uintptr_t cfa = (uintptr_t)__builtin_frame_address(0) + 16;
    int n = fast_walk(t, (uintptr_t)__builtin_return_address(0), cfa, frames,
                      max);
    if (n >= 0)
      return n;
    CL_PHASE_ADD(CL_PH_STACK_FAST_MISS, 1);
  }
  CL_PHASE_BEGIN(t0);
  struct walk w = {frames, 0, max, 0, 0};
  _Unwind_Backtrace(step, &w);
  CL_PHASE_END(CL_PH_STACK_SLOW, t0);
  return w.n;
}

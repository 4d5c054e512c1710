/* kparams.c - finds the kernel arguments that point into memory the program
 * allocated through CUDA.  The parameter layout of each kernel comes from the
 * driver (cuFuncGetParamInfo) once and is cached; every 8-byte-aligned word of
 * a parameter (so pointers inside by-value structs too) is checked against
 * the map of live allocations kept here: memory allocated, registered,
 * opened through IPC, and each mapping of physical memory into a reserved
 * range (cuMemMap; adjacent mappings are adjacent ranges, so a pointer
 * anywhere in mapped memory is found).  The words that may be pointers are
 * mostly left for the writer to resolve, against the map as of the launch
 * (the map's generations, below; cl_kparams_scan says when not).
 *
 * A structure declared without an initializer keeps, in the members the
 * program never sets, what the stack held (C++ [dcl.init]): PyTorch's
 * TensorListMetadata (multi-tensor apply: the foreach ops, fused
 * optimizers, FSDP's all-gather copy-in) fills its address slots only as
 * far as a launch needs, and on the H100 its other words pointed to
 * tensors and pinned buffers the host had used before.  A stack's
 * contents include return addresses, and no kernel argument means an
 * address in host code (the device cannot run it; a device lambda may
 * capture a host reference it never uses, so a stack address would not
 * do): a by-value aggregate that holds one was not fully initialized, and
 * its pointer-like words are marked (cl_karg.uninit) as words that may be
 * stale (the report decides which: checks/find_races.c). */
#include <cuda.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ablate.h"
#include "driver.h"
#include "hostcode.h"
#include "kparams.h"
#include "ring.h"
#include "selftime.h"
#include "shim.h"
#include "threadmem.h"

/* ---- the allocation map: sorted [start, end) ranges, read-mostly ----------
 * Read on every launch, copy and synchronization by the program's threads,
 * changed by allocations and frees: a sequence lock, so that a reader
 * takes no lock and writes no shared cache line (a read-write lock made
 * two atomic operations on one line per lookup, which threads launching
 * at once pass between their cores).  A writer (map_lock) makes map_seq
 * odd, changes the map, makes it even again; a reader reads map_seq,
 * reads, and reads again if map_seq was odd or has changed meanwhile.  A
 * reader may thus read a range a writer is moving: what it read is never
 * used unless map_seq says no writer ran, and every read stays inside an
 * array that is never freed.  An array that grows is copied; the old one
 * is kept (a reader may still be in it): they are half the size of the
 * live array in all (the sizes double). */
struct range {
  uint64_t start, end;
  int kind;
  uint32_t flags;         /* managed: the attach flags (cudaMemAttach*) */
  uint64_t host;          /* a device alias (cudaHostGetDevicePointer) of the
                           * pinned allocation starting here; 0: none */
  int32_t device;         /* the device whose memory it is; -1: host memory */
  uint64_t born;          /* the map generation that added it */
};
struct ranges {
  size_t cap;
  struct ranges *older;   /* the array this one replaced, kept */
  struct range v[];
};
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER; /* writers */
static _Atomic unsigned map_seq; /* odd while a writer changes the map */
static _Atomic(struct ranges *) map;
static _Atomic size_t nmap;
static _Atomic uint64_t map_lo = UINT64_MAX, map_hi;
/* the bounds of the ranges the host may reach too (pinned, registered,
 * managed; never narrowed): a launch whose argument falls in one is
 * resolved on its thread, for the host-access check */
static _Atomic uint64_t reach_lo = UINT64_MAX, reach_hi;

/* ---- the map's generations, for the writer ---------------------------------
 * A launch's argument words are resolved by the writer (cl_kparams_resolve),
 * later, against the map as the launch saw it: every change of the map
 * (under map_lock) is a generation, map_gen counts those done, each range
 * keeps the generation that added it, and a range removed or replaced goes
 * to the dead ranges with the generation that removed it.  A launch
 * scanned in generation G reads the ranges born at or before G and not
 * dead by then.  The dead ranges are kept until no launch left to resolve
 * was scanned before their death (cl_kparams_prune: the writer knows that
 * from the rings' holds, ring.h); the oldest die first, so they are
 * dropped from the front. */
static _Atomic uint64_t map_gen;
struct dead {
  uint64_t start, end, born, died;
  int device; /* device memory (kparams.c's device flag) */
};
static struct dead *dead; /* under map_lock */
static size_t ndead, capdead;
static _Atomic uint64_t unburied; /* removed ranges not kept: no memory */

/* a field of the map that a writer may be changing (see above) */
#define RD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static unsigned read_begin(void)
{
  unsigned s;
  for (unsigned spins = 0;
       (s = atomic_load_explicit(&map_seq, memory_order_acquire)) & 1; spins++)
    if (spins >= 64)
      sched_yield(); /* a writer was preempted */
  return s;
}

/* did a writer change the map since read_begin returned S? */
static int read_again(unsigned s)
{
  atomic_thread_fence(memory_order_acquire);
  return atomic_load_explicit(&map_seq, memory_order_relaxed) != s;
}

/* a writer's change: the generation it makes */
static uint64_t write_begin(void)
{
  pthread_mutex_lock(&map_lock);
  unsigned s = atomic_load_explicit(&map_seq, memory_order_relaxed);
  atomic_store_explicit(&map_seq, s + 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  return atomic_load_explicit(&map_gen, memory_order_relaxed) + 1;
}

static void write_end(void)
{
  unsigned s = atomic_load_explicit(&map_seq, memory_order_relaxed);
  atomic_store_explicit(&map_seq, s + 1, memory_order_release);
  atomic_store(&map_gen, atomic_load_explicit(&map_gen, memory_order_relaxed) + 1);
  pthread_mutex_unlock(&map_lock);
}

static int device_kind(int kind)
{
  return kind == CL_MEMKIND_DEVICE || kind == CL_MEMKIND_MAPPED;
}

/* (under map_lock) range R is removed in generation GEN: kept among the
 * dead while a launch left to resolve may need it (when memory is short,
 * it is not, and counted: cl_kparams_take_unburied) */
static void bury(const struct range *r, uint64_t gen)
{
  if (ndead == capdead) {
    size_t nc = capdead ? capdead * 2 : 64;
    struct dead *d = realloc(dead, nc * sizeof *d);
    if (!d) {
      atomic_fetch_add(&unburied, 1);
      return;
    }
    dead = d, capdead = nc;
  }
  dead[ndead++] = (struct dead){r->start, r->end, r->born, gen,
                                device_kind(r->kind)};
}

/* the map's ranges as a reader (or the writer) sees them: their number,
 * never more than the array holds */
static size_t view(const struct range **v)
{
  const struct ranges *m = atomic_load_explicit(&map, memory_order_acquire);
  size_t n = atomic_load_explicit(&nmap, memory_order_relaxed);
  *v = m ? m->v : NULL;
  return !m ? 0 : n < m->cap ? n : m->cap;
}

/* the first of the N ranges V starting at or after START */
static inline size_t lower_bound(const struct range *v, size_t n,
                                 uint64_t start)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (RD(v[mid].start) < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The range starting last at or before ADDR: 1 and, in *R, the fields
 * FIELDS names (a constant: only those are read), or 0 when none does. */
enum { F_START = 1, F_END = 2, F_KIND = 4, F_FLAGS = 8, F_HOST = 16, F_DEVICE = 32 };
static inline __attribute__((always_inline)) int
range_before(uint64_t addr, struct range *r, unsigned fields)
{
  int found;
  unsigned s;
  do {
    s = read_begin();
    const struct range *v;
    size_t n = view(&v); /* before v is read: argument order is unspecified */
    size_t i = lower_bound(v, n, addr + 1);
    found = i > 0;
    if (found) {
      const struct range *x = &v[i - 1];
      if (fields & F_START)
        r->start = RD(x->start);
      if (fields & F_END)
        r->end = RD(x->end);
      if (fields & F_KIND)
        r->kind = RD(x->kind);
      if (fields & F_FLAGS)
        r->flags = RD(x->flags);
      if (fields & F_HOST)
        r->host = RD(x->host);
      if (fields & F_DEVICE)
        r->device = RD(x->device);
    }
  } while (read_again(s));
  return found;
}

/* (writer) room for one more range; 0 when there is none */
static int make_room(void)
{
  struct ranges *m = atomic_load_explicit(&map, memory_order_relaxed);
  size_t n = atomic_load_explicit(&nmap, memory_order_relaxed);
  if (m && n < m->cap)
    return 1;
  size_t nc = m ? m->cap * 2 : 256;
  struct ranges *g = malloc(sizeof *g + nc * sizeof g->v[0]);
  if (!g)
    return 0;
  g->cap = nc;
  g->older = m;
  if (m)
    memcpy(g->v, m->v, n * sizeof *m->v);
  atomic_store_explicit(&map, g, memory_order_release);
  return 1;
}

/* (writer) the map's array and its number of ranges */
static struct range *wmap(size_t *n)
{
  struct ranges *m = atomic_load_explicit(&map, memory_order_relaxed);
  *n = atomic_load_explicit(&nmap, memory_order_relaxed);
  return m ? m->v : NULL;
}

static void set_nmap(size_t n)
{
  atomic_store_explicit(&nmap, n, memory_order_relaxed);
}

/* (under map_lock) bounds [*LO, *HI) widened to hold [start, end) */
static void widen(_Atomic uint64_t *lo, _Atomic uint64_t *hi, uint64_t start,
                  uint64_t end)
{
  if (start < atomic_load(lo))
    atomic_store(lo, start);
  if (end > atomic_load(hi))
    atomic_store(hi, end);
}

void cl_allocmap_add(uint64_t start, uint64_t size, int kind, uint32_t flags,
                     int32_t device)
{
  if (!start || !size)
    return;
  uint64_t gen = write_begin();
  size_t n;
  struct range *m = wmap(&n);
  size_t i = lower_bound(m, n, start);
  if (i < n && m[i].start == start) {
    bury(&m[i], gen);
    m[i] = (struct range){start, start + size, kind, flags, 0, device, gen};
  } else {
    if (!make_room()) {
      write_end();
      return;
    }
    m = wmap(&n);
    memmove(&m[i + 1], &m[i], (n - i) * sizeof *m);
    m[i] = (struct range){start, start + size, kind, flags, 0, device, gen};
    set_nmap(n + 1);
  }
  widen(&map_lo, &map_hi, start, start + size);
  if (kind == CL_MEMKIND_PINNED || kind == CL_MEMKIND_REGISTERED ||
      kind == CL_MEMKIND_MANAGED)
    widen(&reach_lo, &reach_hi, start, start + size);
  write_end();
}

void cl_allocmap_remove(uint64_t start)
{
  uint64_t gen = write_begin();
  size_t n;
  struct range *m = wmap(&n);
  size_t i = lower_bound(m, n, start);
  if (i < n && m[i].start == start && !m[i].host) {
    bury(&m[i], gen);
    memmove(&m[i], &m[i + 1], (n - i - 1) * sizeof *m);
    n--;
    /* and the device aliases of the allocation */
    for (size_t k = 0; k < n;)
      if (m[k].host == start) {
        bury(&m[k], gen);
        memmove(&m[k], &m[k + 1], (n - k - 1) * sizeof *m);
        n--;
      } else {
        k++;
      }
    set_nmap(n);
  }
  write_end();
}

void cl_allocmap_remove_range(uint64_t start, uint64_t size)
{
  uint64_t gen = write_begin();
  size_t n;
  struct range *m = wmap(&n);
  size_t i = lower_bound(m, n, start), k = i;
  while (k < n && m[k].start - start < size && m[k].kind == CL_MEMKIND_MAPPED)
    bury(&m[k++], gen);
  if (k > i) {
    memmove(&m[i], &m[k], (n - k) * sizeof *m);
    set_nmap(n - (k - i));
  }
  write_end();
}

void cl_allocmap_alias(uint64_t device, uint64_t host)
{
  if (!device || device == host)
    return; /* unified addressing: the host pointer is the device's */
  struct range r = {0};
  int found = range_before(host, &r, F_START | F_END | F_KIND | F_HOST) &&
              host < r.end && !r.host &&
              (r.kind == CL_MEMKIND_PINNED || r.kind == CL_MEMKIND_REGISTERED);
  if (!found || device < host - r.start)
    return;
  uint64_t base = device - (host - r.start);
  cl_allocmap_add(base, r.end - r.start, r.kind, 0, -1);
  write_begin();
  size_t n;
  struct range *m = wmap(&n);
  size_t i = lower_bound(m, n, base);
  if (i < n && m[i].start == base)
    m[i].host = r.start;
  write_end();
}

void cl_allocmap_attach(uint64_t addr, uint32_t flags)
{
  write_begin();
  size_t n;
  struct range *m = wmap(&n);
  size_t i = lower_bound(m, n, addr + 1);
  if (i > 0 && addr < m[i - 1].end && m[i - 1].kind == CL_MEMKIND_MANAGED)
    m[i - 1].flags = flags;
  write_end();
}

int cl_allocmap_device_reach(uint64_t v, uint64_t *start, uint64_t *end)
{
  struct range r = {0};
  if (!range_before(v, &r, F_START | F_END | F_KIND | F_FLAGS | F_HOST) ||
      v >= r.end)
    return 0;
  int found = 0;
  switch (r.kind) {
  case CL_MEMKIND_MANAGED:
    found = !(r.flags & 0x02); /* cudaMemAttachHost: the host's */
    break;
  case CL_MEMKIND_PINNED:
    found = 1;
    break;
  case CL_MEMKIND_REGISTERED:
    /* read-only registrations must never be made writable again */
    found = !(r.flags & 0x08);
    break;
  default:
    break;
  }
  if (found) {
    *start = r.host ? r.host : r.start;
    *end = *start + (r.end - r.start);
  }
  return found;
}

int cl_allocmap_kind(uint64_t addr, uint64_t bytes)
{
  struct range r = {0};
  if (!range_before(addr, &r, F_END | F_KIND | F_FLAGS | F_HOST) ||
      addr + bytes > r.end || r.host)
    return CL_MEMKIND_UNKNOWN;
  /* read-only registrations must never be made writable again */
  if (r.kind == CL_MEMKIND_REGISTERED && (r.flags & 0x08))
    return CL_MEMKIND_UNKNOWN;
  return r.kind;
}

int cl_allocmap_kind_device(uint64_t addr, uint64_t bytes, int32_t *device)
{
  struct range r = {0};
  if (!range_before(addr, &r, F_END | F_KIND | F_FLAGS | F_HOST | F_DEVICE)) {
    *device = -1;
    return CL_MEMKIND_UNKNOWN;
  }
  *device = addr < r.end ? r.device : -1; /* as cl_allocmap_device */
  /* as cl_allocmap_kind */
  if (addr + bytes > r.end || r.host ||
      (r.kind == CL_MEMKIND_REGISTERED && (r.flags & 0x08)))
    return CL_MEMKIND_UNKNOWN;
  return r.kind;
}

int32_t cl_allocmap_device(uint64_t addr)
{
  struct range r = {0};
  return range_before(addr, &r, F_END | F_DEVICE) && addr < r.end ? r.device
                                                                  : -1;
}

int cl_allocmap_find(uint64_t addr, uint64_t *start, uint64_t *end)
{
  struct range r = {0};
  if (!range_before(addr, &r, F_START | F_END) || addr >= r.end)
    return 0;
  *start = r.start;
  *end = r.end;
  return 1;
}

/* ---- parameter layouts, cached per CUfunction ------------------------------ *
 * A CUfunction handle is an address the driver may give to another kernel
 * once its module is unloaded (XLA's autotuner loads and unloads modules by
 * the hundred): a layout is valid only in the module generation it was
 * read in, and every module unload starts a new generation.  Reading a new
 * kernel's arguments with an old kernel's layout reads past them. */
#define MAX_PARAMS 64
struct layout {
  void *func;
  unsigned gen;           /* module_gen when read */
  unsigned n;
  int aggregate;          /* a parameter is wider than a pointer */
  /* the parameters' sizes (a launch passes a pointer to each parameter,
   * so their offsets are not needed but by a launch that passes them in
   * one buffer: cl_kparams_scan_buffer): the first 22 in the header's
   * line (a layout starts a line: layout_read) */
  uint16_t size[MAX_PARAMS];
  uint16_t offset[MAX_PARAMS];
};
_Static_assert(offsetof(struct layout, size) + 22 * sizeof(uint16_t) <= 64,
               "a layout's header and 22 sizes fill one line");
/* The table of layouts: open addressing, read without a lock (a launch
 * looks its kernel up; PyTorch's training steps launch a few hundred
 * distinct kernels, more than a thread's cache holds) and written under
 * layout_lock.  A slot, once set, only ever points to a layout of the same
 * function (a newer generation's); layouts are never freed, so a reader
 * that loaded a pointer may always read through it. */
#define LAYOUT_BITS 14
#define LAYOUTS (1u << LAYOUT_BITS)
static _Atomic(struct layout *) layouts[LAYOUTS];
static pthread_mutex_t layout_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned module_gen;

void cl_kparams_module_unloading(void)
{
  atomic_fetch_add(&module_gen, 1);
}

typedef int (*param_info_fn)(void *f, size_t index, size_t *off, size_t *size);

static struct layout *layout_read(void *func, unsigned h, unsigned gen);

/* FUNC's slot in the table (from its home slot H), with FUNC's layout in
 * *L; or the free slot where it would go, *L NULL; NULL when the table is
 * full */
static _Atomic(struct layout *) *layout_slot(const void *func, unsigned h,
                                             struct layout **l)
{
  *l = NULL;
  for (unsigned k = 0; k < LAYOUTS; k++) {
    _Atomic(struct layout *) *s = &layouts[(h + k) % LAYOUTS];
    struct layout *x = atomic_load_explicit(s, memory_order_acquire);
    if (!x || x->func == func) {
      *l = x;
      return s;
    }
  }
  return NULL;
}

/* FUNC's layout of generation GEN from the table, without a lock; NULL when
 * it has none (or only an older generation's) */
static struct layout *layout_find(const void *func, unsigned h, unsigned gen)
{
  struct layout *l;
  layout_slot(func, h, &l);
  return l && l->gen == gen ? l : NULL;
}

/* ---- what a thread keeps (threadmem.c: allocated on its first launch,
 * not in static TLS, which every thread of every process clears) ---------- */
#define LAYOUTS_MINE 256
#define RECENT 8
struct mine {
  /* the layouts it used: a cache in front of the shared table, as large
   * as a training step's kernels (16 sent most launches to the table: a
   * line of its 128 KiB more, and the layout's) */
  struct layout *layouts[LAYOUTS_MINE];
  /* The ranges its launches fell in lately.  A launch's pointers fall in
   * a few allocations (a caching allocator's segments: PyTorch keeps small
   * and large blocks apart, so inputs, weights and outputs are in
   * different ones), mostly those the thread's last launches fell in:
   * 2.3-3.6 searches of the map a launch of resnet18 or a transformer,
   * each waiting for ~7 lines of it (the H100: bench/README.md, session
   * 9).  The last RECENT ranges a search found, allocations and the gaps
   * between them (a word inside the allocations' span and in none), with
   * the map_seq of the map they were read from: a scan that reads another
   * map_seq (a writer ran since) forgets them.  Ranges read in a pass that
   * read_again rejects are forgotten too, as the next pass reads a new
   * map_seq. */
  struct recent {
    unsigned seq;  /* map_seq of the ranges below */
    unsigned n, next;
    struct {
      uint64_t start, end;
      int inside;  /* an allocation; 0: a gap between two */
      int device;
    } r[RECENT];
  } recent;
};
static __thread struct mine *mine;

/* a per-thread cache in front of the shared table */
static struct layout *layout_of(struct mine *m, void *func)
{
  unsigned h = cl_hash_bits((uintptr_t)func, LAYOUT_BITS);
  unsigned gen = atomic_load_explicit(&module_gen, memory_order_acquire);
  struct layout *none = NULL;
  struct layout **r = m ? &m->layouts[h % LAYOUTS_MINE] : &none;
  if (*r && (*r)->func == func && (*r)->gen == gen)
    return *r;
  struct layout *l = layout_find(func, h, gen);
  return *r = l ? l : layout_read(func, h, gen);
}

/* reads FUNC's layout from the driver and enters it in the table */
static struct layout *layout_read(void *func, unsigned h, unsigned gen)
{
  pthread_mutex_lock(&layout_lock);
  struct layout *old; /* FUNC's, of an older generation unless another
                       * thread read it meanwhile */
  _Atomic(struct layout *) *slot = layout_slot(func, h, &old);
  if (old && old->gen == gen) { /* another thread read it meanwhile */
    pthread_mutex_unlock(&layout_lock);
    return old;
  }
  CL_PHASE_BEGIN(t0);
  /* The runtime launches library-managed kernels (CUkernel) through the
   * CUfunction slot, so both queries are tried. */
  static param_info_fn func_info, kernel_info;
  static int looked;
  if (!looked) {
    func_info = (param_info_fn)cl_driver_sym("cuFuncGetParamInfo");
    kernel_info = (param_info_fn)cl_driver_sym("cuKernelGetParamInfo");
    looked = 1;
    if (!func_info && !kernel_info)
      CL_LOG(CL_LOG_WARN, "the driver has no cuFuncGetParamInfo: kernel "
                          "pointer arguments are not recorded");
  }
  /* a full table (no slot): the kernel's arguments go unrecorded; on a
   * line of its own (its header and first sizes: struct layout) */
  struct layout *l = NULL;
  if (slot && posix_memalign((void **)&l, 64, sizeof *l) != 0)
    l = NULL;
  if (l) {
    memset(l, 0, sizeof *l);
    l->func = func;
    l->gen = gen;
    size_t off, size;
    param_info_fn info = func_info;
    if (info && info(func, 0, &off, &size) != 0)
      info = kernel_info;
    while (info && l->n < MAX_PARAMS && info(func, l->n, &off, &size) == 0) {
      l->size[l->n] = (uint16_t)(size > 0xffff ? 0xffff : size);
      l->offset[l->n] = (uint16_t)(off > 0xffff ? 0xffff : off);
      l->aggregate |= size > 8;
      l->n++;
    }
    CL_LOG(CL_LOG_DEBUG, "kernel %p: %u parameters", func, l->n);
    /* a stale layout stays allocated: another thread may be reading it */
    atomic_store_explicit(slot, l, memory_order_release);
  }
  CL_PHASE_END(CL_PH_KP_READ, t0);
  if (old)
    CL_PHASE_ADD(CL_PH_KP_STALE, 1);
  pthread_mutex_unlock(&layout_lock);
  return l;
}

/* CUDA's limit for all of a kernel's parameters (32,764 bytes since CUDA
 * 12.1), rounded up: the most of a parameter looked at, and of a launch's
 * buffer copied (cl_kparams_scan_buffer) */
#define PARAM_SPACE 32768

/* ---- skipping words in neither span, four at a time ------------------------
 * Most argument words (sizes, strides, flags, an aggregate's padding) are
 * in neither the allocations' span nor host code's: word by word that is
 * about 12 instructions a word, half of a launch's scan (callgrind, the
 * simulated runtime, a resnet-like launch of 79 words).  With AVX2, four
 * words take one unsigned comparison with each span: x < y unsigned is
 * (x ^ 2^63) < (y ^ 2^63) signed.  The test is the word loop's own, so
 * the words looked at one by one afterwards are the same. */
int cl_kparams_vector = -1; /* -1: not asked yet; 0: word by word */

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/* the first block of four words from Q on with a word in [lo, lo + span) or
 * [clo, clo + cspan); or where fewer than four words are left before END */
__attribute__((target("avx2"))) static const unsigned char *
skip_neither(const unsigned char *q, const unsigned char *end, uint64_t lo,
             uint64_t span, uint64_t clo, uint64_t cspan)
{
  const __m256i bias = _mm256_set1_epi64x((long long)(1ull << 63));
  const __m256i vlo = _mm256_set1_epi64x((long long)lo);
  const __m256i vspan = _mm256_set1_epi64x((long long)(span ^ (1ull << 63)));
  const __m256i vclo = _mm256_set1_epi64x((long long)clo);
  const __m256i vcspan = _mm256_set1_epi64x((long long)(cspan ^ (1ull << 63)));
  for (; end - q >= 32; q += 32) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)q);
    __m256i a = _mm256_xor_si256(_mm256_sub_epi64(v, vlo), bias);
    __m256i c = _mm256_xor_si256(_mm256_sub_epi64(v, vclo), bias);
    __m256i hit = _mm256_or_si256(_mm256_cmpgt_epi64(vspan, a),
                                  _mm256_cmpgt_epi64(vcspan, c));
    if (!_mm256_testz_si256(hit, hit))
      break;
  }
  return q;
}

/* AVX2 in the processor and its registers saved by the kernel (CPUID and
 * XGETBV: no run-time library asked, which the wheel's compiler lacks) */
static int has_avx2(void)
{
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)) || !(c & (1u << 28)))
    return 0; /* no OSXSAVE or no AVX */
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 6) != 6)
    return 0; /* the kernel does not save the YMM registers */
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 5));
}

static int vector_ok(void)
{
  if (cl_kparams_vector < 0)
    cl_kparams_vector = has_avx2();
  return cl_kparams_vector;
}
#else
static const unsigned char *skip_neither(const unsigned char *q,
                                         const unsigned char *end, uint64_t lo,
                                         uint64_t span, uint64_t clo,
                                         uint64_t cspan)
{
  (void)end, (void)lo, (void)span, (void)clo, (void)cspan;
  return q;
}
static int vector_ok(void) { return 0; }
#endif

/* the range the last word fell in: the pointers of one launch mostly fall
 * in one allocation (a caching allocator's segment) */
struct hit {
  uint64_t start, end;
  int device;
};

/* Whether V (inside the map's bounds) is in a range of the map RV (N
 * ranges, as read in this pass), and that range in *H: the last one
 * found, else the thread's recent ones (RC), else a search of the map,
 * which RC then keeps. */
static inline int find_range(uint64_t v, struct hit *h, struct recent *rc,
                             const struct range *rv, size_t n)
{
  if (v >= h->start && v < h->end)
    return 1;
  unsigned j = 0;
  while (j < rc->n && (v < rc->r[j].start || v >= rc->r[j].end))
    j++;
  if (j < rc->n) {
    if (!rc->r[j].inside)
      return 0; /* in a gap found before */
    h->start = rc->r[j].start, h->end = rc->r[j].end;
    h->device = rc->r[j].device;
    return 1;
  }
  /* first range starting after v */
  CL_PHASE_ADD(CL_PH_KP_SEARCH, 1);
  size_t k = lower_bound(rv, n, v + 1);
  int inside = k > 0 && v < RD(rv[k - 1].end);
  unsigned slot = rc->next++ % RECENT;
  if (rc->n < RECENT)
    rc->n++;
  rc->r[slot].inside = inside;
  if (inside) {
    h->start = RD(rv[k - 1].start), h->end = RD(rv[k - 1].end);
    h->device = device_kind(RD(rv[k - 1].kind));
    rc->r[slot].start = h->start, rc->r[slot].end = h->end;
    rc->r[slot].device = h->device;
  } else { /* the gap v is in: from the range before to the next */
    rc->r[slot].start = k > 0 ? RD(rv[k - 1].end) : 0;
    rc->r[slot].end = k < n ? RD(rv[k].start) : UINT64_MAX;
  }
  return inside;
}

/* A structure filled only as far as a launch needs fills its slots from
 * the front (PyTorch's multi-tensor metadata: a launch's tensors' addresses,
 * then their sizes, then which block works on which): the later a word, the
 * likelier a slot this launch left as the stack held it.  On the H100 a
 * CUDA graph's AdamW step held, in its metadata's unused size slots, the
 * address of a buffer another stream had just written, with no address in
 * host code beside it to tell (session 15).  So a parameter's words past
 * its 16th kept are marked too: the 16 a launch kept before session 15
 * keep their marks, and the words kept beyond can make warnings only
 * (unless the report finds a pointer there at every launch). */
#define TRUSTED_WORDS 16

/* the words from FIRST on of parameters UNINIT (bit i: parameter i) are
 * marked (parameters from the 64th on never are: a shift by 64 or more is
 * undefined, and x86 would read the mark of parameter param % 64), and so
 * are a parameter's words past its TRUSTED_WORDS-th (the words are in
 * the order of their parameters) */
static void mark_uninit(struct cl_karg *kargs, unsigned first, unsigned n,
                        uint64_t uninit)
{
  unsigned nth = 0; /* the word's place among its parameter's */
  for (unsigned k = first; k < n; k++) {
    nth = k > first && kargs[k].param == kargs[k - 1].param ? nth + 1 : 0;
    kargs[k].uninit = nth >= TRUSTED_WORDS ||
                      (kargs[k].param < 64 && ((uninit >> kargs[k].param) & 1));
  }
}

/* The words from FIRST on that the scan kept unresolved, resolved as it
 * goes on (find_range, host code): those in a range kept, in order; the
 * parameters marked (bit i: parameter i) returned. */
static uint64_t settle(struct cl_kscan *s, unsigned first,
                       const struct cl_hostcode *code, struct hit *h,
                       struct recent *rc, const struct range *rv, size_t n)
{
  uint64_t uninit = 0;
  unsigned kept = first;
  for (unsigned k = first; k < s->n; k++) {
    struct cl_karg a = s->kargs[k];
    if ((a.unresolved & CL_KARG_MAYBE_ALLOC) && find_range(a.value, h, rc, rv, n)) {
      a.unresolved = 0;
      a.device_only = (uint8_t)h->device;
      s->kargs[kept++] = a;
    } else if ((a.unresolved & CL_KARG_MAYBE_CODE) && a.param < 64 &&
               !((uninit >> a.param) & 1)) {
      CL_PHASE_ADD(CL_PH_KP_CODE, 1);
      if (cl_hostcode_has(code, a.value))
        uninit |= (uint64_t)1 << a.param;
    }
  }
  s->n = (uint16_t)kept;
  return uninit;
}

/* The scan asks of every word whether it is in [lo, hi) (the allocations'
 * bounds) and, in an aggregate, whether it is in host code's bounds: each
 * one unsigned comparison (v - lo < hi - lo), and only a word inside the
 * bounds costs more.  Most words (sizes, strides, flags) are in neither.
 *
 * DEFER: the words inside the bounds are kept as they are (unresolved,
 * with what they may be) for the writer to resolve against the map as of
 * this generation (cl_kparams_resolve), off the program's thread: the
 * ranges and host code they fall in are on lines the program's own work
 * evicted since the last launch (bench/README.md, session 14: ~0.005-0.01
 * of a training step).  The words are resolved now after all when the
 * thread cannot hold its generation (its first record), when they do not
 * fit (S->cap), or when one may be memory the host reaches too (pinned,
 * registered, managed: the host-access check guards it at the launch). */
void cl_kparams_scan(void *func, void **params, struct cl_kscan *s, int defer)
{
  s->deferred = 0;
  if (!func || !params || s->truncated ||
      atomic_load_explicit(&map_hi, memory_order_relaxed) == 0)
    return;
  CL_PHASE_BEGIN(t0);
  struct mine *m = cl_thread_calloc((void **)&mine, sizeof *mine);
  struct layout *l = layout_of(m, func);
  CL_PHASE_END(CL_PH_KP_LAYOUT, t0);
  if (!l || !l->n || CL_ABLATED(CL_ABLATE_LAYOUT))
    return;
  if (CL_ABLATED(CL_ABLATE_IMMEDIATE))
    defer = 0;
  uint64_t gen = 0;
  int held = 0;
  if (defer) {
    /* held before the generation is read (ring.c's cl_ring_hold) */
    held = defer = s->n == 0 && cl_ring_hold(atomic_load_explicit(
                                          &map_gen, memory_order_relaxed));
    gen = atomic_load(&map_gen);
  }
  uint64_t lo = atomic_load_explicit(&map_lo, memory_order_relaxed);
  uint64_t hi = atomic_load_explicit(&map_hi, memory_order_relaxed);
  uint64_t span = hi > lo ? hi - lo : 0; /* 0: nothing is inside */
  uint64_t rlo = atomic_load_explicit(&reach_lo, memory_order_relaxed);
  uint64_t rhi = atomic_load_explicit(&reach_hi, memory_order_relaxed);
  uint64_t rspan = rhi > rlo ? rhi - rlo : 0;
  /* (taken before the map's lock: it may ask the loader) */
  const struct cl_hostcode *code = l->aggregate ? cl_hostcode_now() : NULL;
  uint64_t code_lo = 0, code_span = 0; /* 0: no word is host code */
  uint64_t gap_lo = 0, gap_span = 0;   /* 0: no word is in the gap */
  if (code)
    cl_hostcode_bounds(code, &code_lo, &code_span, &gap_lo, &gap_span);
  struct hit hit;
  uint64_t uninit; /* the aggregates that held an address in host code */
  unsigned first = s->n;
  int vector = vector_ok();
  unsigned seq;
  struct recent none; /* no memory: none kept (set at again, never read
                       * before: initializing its 280 bytes took 31 of a
                       * launch's ~2,800 instructions) */
  struct recent *rc = m ? &m->recent : &none;
again:
  seq = read_begin();
  if (!m || rc->seq != seq)
    rc->seq = seq, rc->n = rc->next = 0;
  const struct range *rv;
  size_t nranges = view(&rv);
  hit = (struct hit){1, 0, 0}, uninit = 0;
  s->n = (uint16_t)first;
  s->truncated = 0;
  for (unsigned i = 0; i < l->n; i++) {
    const unsigned char *p = params[i];
    unsigned size = l->size[i] > PARAM_SPACE ? PARAM_SPACE : l->size[i];
    if (!p)
      continue;
    CL_PHASE_ADD(CL_PH_KP_WORDS, size / 8);
    /* an address in host code marks an aggregate (kparams.c's top) */
    uint64_t cspan = size > 8 && i < 64 ? code_span : 0;
    const unsigned char *end = p + (size & ~7u);
    for (const unsigned char *q = p, *stop = p; q < end; q += 8) {
      if (q == stop && vector && end - q >= 32) {
        /* the next block with a word to look at, then that block (or
         * the last words) one by one */
        q = skip_neither(q, end, lo, span, code_lo, cspan);
        stop = end - q >= 32 ? q + 32 : end;
        if (q == end)
          break;
      }
      uint64_t v;
      memcpy(&v, q, 8);
      if (v - lo >= span && v - code_lo >= cspan)
        continue; /* neither in an allocation nor in host code */
      if (defer) { /* kept as it is, for the writer */
        uint8_t maybe = (v - lo < span ? CL_KARG_MAYBE_ALLOC : 0) |
                        (v - code_lo < cspan && v - gap_lo >= gap_span
                             ? CL_KARG_MAYBE_CODE : 0);
        if (!maybe)
          continue;
        if (s->n < s->cap &&
            !(v - rlo < rspan && find_range(v, &hit, rc, rv, nranges) &&
              !hit.device)) {
          s->kargs[s->n++] =
              (struct cl_karg){(uint16_t)i, (uint16_t)(q - p), 0, 0, maybe, v};
          continue;
        }
        /* resolved now after all: the words kept so far, then from this
         * one on as below */
        defer = 0;
        uninit |= settle(s, first, code, &hit, rc, rv, nranges);
        if (i < 64 && ((uninit >> i) & 1))
          cspan = 0;
      }
      int inside = v - lo < span && find_range(v, &hit, rc, rv, nranges);
      if (!inside) { /* not in an allocation */
        if (v - code_lo < cspan && v - gap_lo >= gap_span) {
          CL_PHASE_ADD(CL_PH_KP_CODE, 1);
          if (cl_hostcode_has(code, v)) {
            uninit |= (uint64_t)1 << i;
            cspan = 0; /* parameter i is marked: its other words need
                        * no lookup (its pointers are still found) */
          }
        }
        continue;
      }
      if (s->n == s->cap) { /* nothing more can be kept */
        s->truncated = 1;
        goto done;
      }
      s->kargs[s->n++] = (struct cl_karg){
          (uint16_t)i, (uint16_t)(q - p), (uint8_t)hit.device, 0, 0, v};
    }
  }
done:
  if (read_again(seq))
    goto again; /* the map changed meanwhile: scan again */
  if (defer && s->n > first) {
    s->deferred = 1; /* held until the record's commit (capture.c) */
    s->gen = gen;
    s->code = code;
    return;
  }
  if (defer)
    goto release; /* nothing to resolve */
  CL_PHASE_ADD(CL_PH_KP_NOW, 1);
  mark_uninit(s->kargs, first, s->n, uninit);
release:
  if (held)
    cl_ring_release();
}

int cl_kparams_extra(void **extra, const void **buf, size_t *bytes)
{
  *buf = NULL, *bytes = 0;
  for (unsigned i = 0; extra && i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
      *buf = extra[i + 1];
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
      *bytes = *(const size_t *)extra[i + 1];
  }
  return *buf && *bytes;
}

static __thread unsigned char *padded; /* a short buffer's copy (below) */

void cl_kparams_scan_buffer(void *func, const void *buf, size_t bytes,
                            struct cl_kscan *s, int defer)
{
  struct mine *m = cl_thread_calloc((void **)&mine, sizeof *mine);
  struct layout *l = func && buf ? layout_of(m, func) : NULL;
  if (!l || !l->n)
    return;
  /* A buffer may hold less than the parameters' declared extent: NCCL
   * passes as much of its 4 KiB argument structure as a launch uses.  It
   * is read as far as it goes, from a copy whose rest is zeros. */
  size_t extent = 0;
  for (unsigned i = 0; i < l->n; i++)
    if ((size_t)l->offset[i] + l->size[i] > extent)
      extent = (size_t)l->offset[i] + l->size[i];
  if (extent > PARAM_SPACE)
    extent = PARAM_SPACE;
  if (bytes < extent) {
    unsigned char *pad = cl_thread_calloc((void **)&padded, PARAM_SPACE);
    if (!pad)
      return;
    memcpy(pad, buf, bytes);
    memset(pad + bytes, 0, extent - bytes);
    buf = pad, bytes = extent;
  }
  /* each parameter where its offset says */
  void *params[MAX_PARAMS];
  for (unsigned i = 0; i < l->n; i++)
    params[i] = (size_t)l->offset[i] + l->size[i] <= bytes
                    ? (void *)((const unsigned char *)buf + l->offset[i])
                    : NULL;
  cl_kparams_scan(func, params, s, defer);
}

/* (the writer thread, under map_lock) whether V was in a range in
 * generation GEN, and whether that was device memory (*DEVICE) */
static int inside_at(uint64_t v, uint64_t gen, int *device)
{
  size_t n;
  const struct range *m = wmap(&n);
  size_t i = lower_bound(m, n, v + 1);
  if (i > 0 && v < m[i - 1].end && m[i - 1].born <= gen) {
    *device = device_kind(m[i - 1].kind);
    return 1;
  }
  /* those removed after GEN (the dead are in the order they died) */
  size_t lo = 0, hi = ndead;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (dead[mid].died <= gen)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t k = lo; k < ndead; k++)
    if (v - dead[k].start < dead[k].end - dead[k].start &&
        dead[k].born <= gen) {
      *device = dead[k].device;
      return 1;
    }
  return 0;
}

unsigned cl_kparams_resolve(struct cl_karg *kargs, unsigned nkargs,
                            uint64_t gen, const struct cl_hostcode *code)
{
  uint64_t uninit = 0;
  unsigned n = 0;
  pthread_mutex_lock(&map_lock);
  for (unsigned k = 0; k < nkargs; k++) {
    struct cl_karg a = kargs[k];
    int device = 0;
    if (!a.unresolved) {
      kargs[n++] = a;
    } else if ((a.unresolved & CL_KARG_MAYBE_ALLOC) &&
        inside_at(a.value, gen, &device)) {
      a.device_only = (uint8_t)device;
      a.unresolved = 0;
      kargs[n++] = a;
    } else if ((a.unresolved & CL_KARG_MAYBE_CODE) && a.param < 64 &&
               cl_hostcode_has(code, a.value)) {
      uninit |= (uint64_t)1 << a.param;
    }
  }
  pthread_mutex_unlock(&map_lock);
  mark_uninit(kargs, 0, n, uninit);
  return n;
}

uint64_t cl_kparams_gen(void)
{
  return atomic_load(&map_gen);
}

void cl_kparams_prune(uint64_t below)
{
  pthread_mutex_lock(&map_lock);
  size_t k = 0;
  while (k < ndead && dead[k].died <= below)
    k++;
  if (k) {
    memmove(dead, dead + k, (ndead - k) * sizeof *dead);
    ndead -= k;
  }
  pthread_mutex_unlock(&map_lock);
}

size_t cl_kparams_dead(void)
{
  pthread_mutex_lock(&map_lock);
  size_t n = ndead;
  pthread_mutex_unlock(&map_lock);
  return n;
}

uint64_t cl_kparams_take_unburied(void)
{
  return atomic_exchange(&unburied, 0);
}

void cl_kparams_atfork_prepare(void)
{
  pthread_mutex_lock(&layout_lock);
  pthread_mutex_lock(&map_lock);
}
void cl_kparams_atfork_parent(void)
{
  pthread_mutex_unlock(&map_lock);
  pthread_mutex_unlock(&layout_lock);
}
/* The child's only thread is not the owner the locks remember: they are
 * made anew rather than unlocked. */
void cl_kparams_atfork_child(void)
{
  pthread_mutex_init(&map_lock, NULL);
  pthread_mutex_init(&layout_lock, NULL);
}

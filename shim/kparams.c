/* kparams.c - finds the kernel arguments that point into memory the program
 * allocated through CUDA.  The parameter layout of each kernel comes from the
 * driver (cuFuncGetParamInfo) once and is cached; every 8-byte-aligned word of
 * a parameter (so pointers inside by-value structs too) is checked against
 * the map of live allocations kept here: memory allocated, registered,
 * opened through IPC, and each mapping of physical memory into a reserved
 * range (cuMemMap; adjacent mappings are adjacent ranges, so a pointer
 * anywhere in mapped memory is found).
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
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "hostcode.h"
#include "kparams.h"
#include "selftime.h"
#include "shim.h"

/* ---- the allocation map: sorted [start, end) ranges, read-mostly ---------- */
struct range {
  uint64_t start, end;
  int kind;
  uint32_t flags;         /* managed: the attach flags (cudaMemAttach*) */
  uint64_t host;          /* a device alias (cudaHostGetDevicePointer) of the
                           * pinned allocation starting here; 0: none */
  int32_t device;         /* the device whose memory it is; -1: host memory */
};
static pthread_rwlock_t map_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct range *map;
static size_t nmap, capmap;
static _Atomic uint64_t map_lo = UINT64_MAX, map_hi;

static size_t lower_bound(uint64_t start)
{
  size_t lo = 0, hi = nmap;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (map[mid].start < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void cl_allocmap_add(uint64_t start, uint64_t size, int kind, uint32_t flags,
                     int32_t device)
{
  if (!start || !size)
    return;
  pthread_rwlock_wrlock(&map_lock);
  size_t i = lower_bound(start);
  if (i < nmap && map[i].start == start) {
    map[i] = (struct range){start, start + size, kind, flags, 0, device};
  } else {
    if (nmap == capmap) {
      size_t nc = capmap ? capmap * 2 : 256;
      struct range *m = realloc(map, nc * sizeof *m);
      if (!m) {
        pthread_rwlock_unlock(&map_lock);
        return;
      }
      map = m;
      capmap = nc;
    }
    memmove(&map[i + 1], &map[i], (nmap - i) * sizeof *map);
    map[i] = (struct range){start, start + size, kind, flags, 0, device};
    nmap++;
  }
  if (start < atomic_load(&map_lo))
    atomic_store(&map_lo, start);
  if (start + size > atomic_load(&map_hi))
    atomic_store(&map_hi, start + size);
  pthread_rwlock_unlock(&map_lock);
}

void cl_allocmap_remove(uint64_t start)
{
  pthread_rwlock_wrlock(&map_lock);
  size_t i = lower_bound(start);
  if (i < nmap && map[i].start == start && !map[i].host) {
    memmove(&map[i], &map[i + 1], (nmap - i - 1) * sizeof *map);
    nmap--;
    /* and the device aliases of the allocation */
    for (size_t k = 0; k < nmap;)
      if (map[k].host == start) {
        memmove(&map[k], &map[k + 1], (nmap - k - 1) * sizeof *map);
        nmap--;
      } else {
        k++;
      }
  }
  pthread_rwlock_unlock(&map_lock);
}

void cl_allocmap_remove_range(uint64_t start, uint64_t size)
{
  pthread_rwlock_wrlock(&map_lock);
  size_t i = lower_bound(start), k = i;
  while (k < nmap && map[k].start - start < size &&
         map[k].kind == CL_MEMKIND_MAPPED)
    k++;
  memmove(&map[i], &map[k], (nmap - k) * sizeof *map);
  nmap -= k - i;
  pthread_rwlock_unlock(&map_lock);
}

void cl_allocmap_alias(uint64_t device, uint64_t host)
{
  uint64_t start, end;
  int kind;
  if (!device || device == host)
    return; /* unified addressing: the host pointer is the device's */
  pthread_rwlock_rdlock(&map_lock);
  size_t i = lower_bound(host + 1);
  int found = i > 0 && host < map[i - 1].end && !map[i - 1].host &&
              (map[i - 1].kind == CL_MEMKIND_PINNED ||
               map[i - 1].kind == CL_MEMKIND_REGISTERED);
  if (found)
    start = map[i - 1].start, end = map[i - 1].end, kind = map[i - 1].kind;
  pthread_rwlock_unlock(&map_lock);
  if (!found || device < host - start)
    return;
  uint64_t base = device - (host - start);
  cl_allocmap_add(base, end - start, kind, 0, -1);
  pthread_rwlock_wrlock(&map_lock);
  i = lower_bound(base);
  if (i < nmap && map[i].start == base)
    map[i].host = start;
  pthread_rwlock_unlock(&map_lock);
}

void cl_allocmap_attach(uint64_t addr, uint32_t flags)
{
  pthread_rwlock_wrlock(&map_lock);
  size_t i = lower_bound(addr + 1);
  if (i > 0 && addr < map[i - 1].end && map[i - 1].kind == CL_MEMKIND_MANAGED)
    map[i - 1].flags = flags;
  pthread_rwlock_unlock(&map_lock);
}

int cl_allocmap_device_reach(uint64_t v, uint64_t *start, uint64_t *end)
{
  int found = 0;
  pthread_rwlock_rdlock(&map_lock);
  size_t i = lower_bound(v + 1);
  if (i > 0 && v < map[i - 1].end) {
    const struct range *r = &map[i - 1];
    switch (r->kind) {
    case CL_MEMKIND_MANAGED:
      found = !(r->flags & 0x02); /* cudaMemAttachHost: the host's */
      break;
    case CL_MEMKIND_PINNED:
      found = 1;
      break;
    case CL_MEMKIND_REGISTERED:
      /* read-only registrations must never be made writable again */
      found = !(r->flags & 0x08);
      break;
    default:
      break;
    }
    if (found) {
      *start = r->host ? r->host : r->start;
      *end = *start + (r->end - r->start);
    }
  }
  pthread_rwlock_unlock(&map_lock);
  return found;
}

int cl_allocmap_kind(uint64_t addr, uint64_t bytes)
{
  int kind = CL_MEMKIND_UNKNOWN;
  pthread_rwlock_rdlock(&map_lock);
  size_t i = lower_bound(addr + 1);
  if (i > 0 && addr + bytes <= map[i - 1].end && !map[i - 1].host)
    kind = map[i - 1].kind;
  /* read-only registrations must never be made writable again */
  if (kind == CL_MEMKIND_REGISTERED && (map[i - 1].flags & 0x08))
    kind = CL_MEMKIND_UNKNOWN;
  pthread_rwlock_unlock(&map_lock);
  return kind;
}

int32_t cl_allocmap_device(uint64_t addr)
{
  int32_t device = -1;
  pthread_rwlock_rdlock(&map_lock);
  size_t i = lower_bound(addr + 1);
  if (i > 0 && addr < map[i - 1].end)
    device = map[i - 1].device;
  pthread_rwlock_unlock(&map_lock);
  return device;
}

int cl_allocmap_find(uint64_t addr, uint64_t *start, uint64_t *end)
{
  int found = 0;
  pthread_rwlock_rdlock(&map_lock);
  size_t i = lower_bound(addr + 1);
  if (i > 0 && addr < map[i - 1].end) {
    *start = map[i - 1].start;
    *end = map[i - 1].end;
    found = 1;
  }
  pthread_rwlock_unlock(&map_lock);
  return found;
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
  uint16_t offset[MAX_PARAMS], size[MAX_PARAMS];
};
#define LAYOUTS 16384
static struct layout *layouts[LAYOUTS];
static pthread_mutex_t layout_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned module_gen;

void cl_kparams_module_unloading(void)
{
  atomic_fetch_add(&module_gen, 1);
}

typedef int (*param_info_fn)(void *f, size_t index, size_t *off, size_t *size);

static struct layout *layout_lookup(void *func);

/* a per-thread cache in front of the shared table: no lock per launch */
static struct layout *layout_of(void *func)
{
  static __thread struct layout *recent[16];
  unsigned k = (unsigned)((uintptr_t)func >> 4) & 15;
  if (recent[k] && recent[k]->func == func &&
      recent[k]->gen == atomic_load_explicit(&module_gen, memory_order_acquire))
    return recent[k];
  return recent[k] = layout_lookup(func);
}

static struct layout *layout_lookup(void *func)
{
  unsigned h = (unsigned)(((uintptr_t)func >> 4) * 2654435761u) % LAYOUTS;
  unsigned gen = atomic_load_explicit(&module_gen, memory_order_acquire);
  pthread_mutex_lock(&layout_lock);
  struct layout **stale = NULL; /* FUNC's slot, read in an older generation */
  for (unsigned k = 0; k < LAYOUTS; k++) {
    struct layout **slot = &layouts[(h + k) % LAYOUTS];
    if (!*slot)
      break;
    if ((*slot)->func == func) {
      if ((*slot)->gen == gen) {
        pthread_mutex_unlock(&layout_lock);
        return *slot;
      }
      stale = slot;
      break;
    }
  }
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
  struct layout *l = calloc(1, sizeof *l);
  if (l) {
    l->func = func;
    l->gen = gen;
    size_t off, size;
    param_info_fn info = func_info;
    if (info && info(func, 0, &off, &size) != 0)
      info = kernel_info;
    while (info && l->n < MAX_PARAMS && info(func, l->n, &off, &size) == 0) {
      l->offset[l->n] = (uint16_t)off;
      l->size[l->n] = (uint16_t)(size > 0xffff ? 0xffff : size);
      l->aggregate |= size > 8;
      l->n++;
    }
    CL_LOG(CL_LOG_DEBUG, "kernel %p: %u parameters", func, l->n);
    /* the old layout stays allocated: another thread may be reading it */
    for (unsigned k = 0; !stale && k < LAYOUTS; k++) {
      struct layout **slot = &layouts[(h + k) % LAYOUTS];
      if (!*slot) {
        *slot = l;
        break;
      }
      if (k == LAYOUTS - 1) { /* table full: arguments go unrecorded */
        free(l);
        l = NULL;
      }
    }
    if (stale)
      *stale = l;
  }
  pthread_mutex_unlock(&layout_lock);
  return l;
}

#define MAX_SCAN_BYTES 4096

/* The scan asks of every word whether it is in [lo, hi) (the allocations'
 * bounds) and, in an aggregate, whether it is in host code's bounds: each
 * one unsigned comparison (v - lo < hi - lo), and only a word inside the
 * bounds costs more.  Most words (sizes, strides, flags) are in neither. */
void cl_kparams_scan(void *func, void **params, struct cl_call *c)
{
  if (!func || !params || c->kargs_truncated ||
      atomic_load_explicit(&map_hi, memory_order_relaxed) == 0)
    return;
  CL_PHASE_BEGIN(t0);
  struct layout *l = layout_of(func);
  CL_PHASE_END(CL_PH_KP_LAYOUT, t0);
  if (!l || !l->n)
    return;
  uint64_t lo = atomic_load_explicit(&map_lo, memory_order_relaxed);
  uint64_t hi = atomic_load_explicit(&map_hi, memory_order_relaxed);
  uint64_t span = hi > lo ? hi - lo : 0; /* 0: nothing is inside */
  /* (taken before the map's lock: it may ask the loader) */
  const struct cl_hostcode *code = l->aggregate ? cl_hostcode_now() : NULL;
  uint64_t code_lo = 0, code_span = 0; /* 0: no word is host code */
  if (code)
    cl_hostcode_bounds(code, &code_lo, &code_span);
  pthread_rwlock_rdlock(&map_lock);
  /* the range the last pointer fell in: the pointers of one launch mostly
   * fall in one allocation (a caching allocator's segment) */
  uint64_t hit_start = 1, hit_end = 0;
  int hit_device = 0;
  uint64_t uninit = 0; /* the aggregates that held an address in host code */
  unsigned first = c->nkargs;
  for (unsigned i = 0; i < l->n; i++) {
    const unsigned char *p = params[i];
    unsigned size = l->size[i] > MAX_SCAN_BYTES ? MAX_SCAN_BYTES : l->size[i];
    if (!p)
      continue;
    CL_PHASE_ADD(CL_PH_KP_WORDS, size / 8);
    /* an address in host code marks an aggregate (kparams.c's top) */
    uint64_t cspan = size > 8 && i < 64 ? code_span : 0;
    const unsigned char *end = p + (size & ~7u);
    for (const unsigned char *q = p; q < end; q += 8) {
      uint64_t v;
      memcpy(&v, q, 8);
      if (v - lo >= span && v - code_lo >= cspan)
        continue; /* neither in an allocation nor in host code */
      int inside = v - lo < span;
      if (inside && (v < hit_start || v >= hit_end)) {
        size_t k = lower_bound(v + 1); /* first range starting after v */
        inside = k > 0 && v < map[k - 1].end;
        if (inside) {
          hit_start = map[k - 1].start, hit_end = map[k - 1].end;
          hit_device = map[k - 1].kind == CL_MEMKIND_DEVICE ||
                       map[k - 1].kind == CL_MEMKIND_MAPPED;
        }
      }
      if (!inside) { /* not in an allocation */
        if (v - code_lo < cspan && cl_hostcode_has(code, v))
          uninit |= (uint64_t)1 << i;
        continue;
      }
      if (c->nkargs == CL_MAX_KARGS) { /* nothing more can be kept */
        c->kargs_truncated = 1;
        goto done;
      }
      c->kargs[c->nkargs++] = (struct cl_karg){
          (uint16_t)i, (uint16_t)(q - p), (uint8_t)hit_device, 0, v};
    }
  }
done:
  pthread_rwlock_unlock(&map_lock);
  for (unsigned k = first; uninit && k < c->nkargs; k++)
    c->kargs[k].uninit = (uninit >> c->kargs[k].param) & 1;
}

void cl_kparams_atfork_prepare(void)
{
  pthread_mutex_lock(&layout_lock);
  pthread_rwlock_wrlock(&map_lock);
}
void cl_kparams_atfork_parent(void)
{
  pthread_rwlock_unlock(&map_lock);
  pthread_mutex_unlock(&layout_lock);
}
/* The child's only thread is not the owner the locks remember: they are
 * made anew rather than unlocked. */
void cl_kparams_atfork_child(void)
{
  pthread_rwlock_init(&map_lock, NULL);
  pthread_mutex_init(&layout_lock, NULL);
}

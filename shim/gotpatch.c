/* gotpatch.c - routes the calls other objects make into NCCL through the
 * shim's wrappers (nccl.c) by rewriting their GOT entries: for each loaded
 * object not looked at yet (the program, PyTorch's libtorch_cuda.so...),
 * its JUMP_SLOT and GLOB_DAT relocations of the functions of nccl.def that
 * are bound to NCCL (or not bound yet: lazy binding) get the wrapper's
 * address.  Nothing is exported by the shim, so a process without NCCL, or
 * one that asks dlsym for an NCCL function, sees what it sees without it;
 * calls NCCL makes to itself, and calls through a pointer the program got
 * from dlsym, are not routed.  Entries in the read-only part of an object
 * after relocation (PT_GNU_RELRO, as glibc protects it: whole pages inside
 * it) are made writable for the store and read-only again.  Each object
 * is looked at once (by load address and name); the caller serializes. */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cudalens/fnv.h"
#include "gotpatch.h"
#include "nccl.h"
#include "objects.h"
#include "shim.h"

#if defined(__x86_64__)
#define R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

#ifdef R_JUMP_SLOT
struct seen {
  uintptr_t addr;
  uint64_t name_hash;
};
static struct seen *seen;
static size_t nseen, capseen;

static uint64_t hash_name(const char *s)
{
  return cl_fnv1a_str(CL_FNV_OFFSET, s);
}

/* 1 the first time an object is met */
static int first_time(uintptr_t addr, const char *name)
{
  uint64_t h = hash_name(name);
  for (size_t i = 0; i < nseen; i++)
    if (seen[i].addr == addr && seen[i].name_hash == h)
      return 0;
  if (nseen == capseen) {
    size_t nc = capseen ? capseen * 2 : 256;
    struct seen *v = realloc(seen, nc * sizeof *v);
    if (!v)
      return 1; /* looked at again next time: harmless */
    seen = v, capseen = nc;
  }
  seen[nseen++] = (struct seen){addr, h};
  return 1;
}

struct patch {
  uintptr_t nccl_start, nccl_end;
  uintptr_t self;  /* an address inside the shim */
  int patched;
};

struct object {
  uintptr_t base, lo, hi;        /* load bias, mapped range */
  uintptr_t relro_lo, relro_hi;  /* read-only after relocation (pages) */
  const ElfW(Sym) *symtab;
  const char *strtab;
  size_t strsz;
};

static const struct cl_nccl_fn *wrapped(const char *name)
{
  if (strncmp(name, "nccl", 4))
    return NULL;
  for (unsigned i = 0; i < cl_nccl_count; i++)
    if (cl_nccl_fns[i].wrapper && !strcmp(cl_nccl_fns[i].name, name))
      return &cl_nccl_fns[i];
  return NULL;
}

static int store(const struct object *o, void **slot, void *value)
{
  uintptr_t a = (uintptr_t)slot;
  if (a < o->lo || a + sizeof *slot > o->hi || ((uintptr_t)slot & 7))
    return 0;
  if (a >= o->relro_lo && a < o->relro_hi) {
    long pg = sysconf(_SC_PAGESIZE);
    void *page = (void *)(a & ~(uintptr_t)(pg - 1));
    if (mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE))
      return 0;
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    mprotect(page, (size_t)pg, PROT_READ);
    return 1;
  }
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  return 1;
}

static void patch_relocs(const struct object *o, const ElfW(Rela) *rel,
                         size_t bytes, struct patch *p)
{
  size_t n = bytes / sizeof *rel;
  for (size_t i = 0; i < n; i++) {
    unsigned type = (unsigned)ELF64_R_TYPE(rel[i].r_info);
    if (type != R_JUMP_SLOT && type != R_GLOB_DAT)
      continue;
    size_t sym = ELF64_R_SYM(rel[i].r_info);
    if (!sym)
      continue;
    size_t off = o->symtab[sym].st_name;
    if (o->strsz && off >= o->strsz)
      continue;
    const struct cl_nccl_fn *fn = wrapped(o->strtab + off);
    if (!fn)
      continue;
    void *real = atomic_load_explicit(fn->real, memory_order_acquire);
    void **slot = (void **)(o->base + rel[i].r_offset);
    uintptr_t cur = (uintptr_t)__atomic_load_n(slot, __ATOMIC_ACQUIRE);
    /* bound to this NCCL, or still to the object's own PLT (lazy) */
    int ours = real && ((void *)cur == real ||
                        (type == R_JUMP_SLOT && cur >= o->lo && cur < o->hi));
    if (ours && store(o, slot, fn->wrapper))
      p->patched++;
  }
}

/* d_ptr of a dynamic entry: glibc relocates most in place; not always */
static uintptr_t dptr(uintptr_t base, ElfW(Addr) v)
{
  return v < base ? base + v : v;
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  struct patch *p = arg;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  struct object o;
  memset(&o, 0, sizeof o);
  o.base = info->dlpi_addr;
  struct cl_span b;
  if (!cl_object_bounds(info, &b))
    return 0;
  o.lo = b.lo, o.hi = b.hi;
  const ElfW(Dyn) *dyn = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t s = o.base + ph->p_vaddr, e = s + ph->p_memsz;
    if (ph->p_type == PT_DYNAMIC) {
      dyn = (const ElfW(Dyn) *)s;
    } else if (ph->p_type == PT_GNU_RELRO) {
      long pg = sysconf(_SC_PAGESIZE);
      o.relro_lo = s & ~(uintptr_t)(pg - 1);
      o.relro_hi = e & ~(uintptr_t)(pg - 1);
    }
  }
  if (!dyn)
    return 0;
  /* NCCL itself, the shim, the loader and the vDSO are left alone */
  if ((o.lo < p->nccl_end && p->nccl_start < o.hi) ||
      (p->self >= o.lo && p->self < o.hi) || strstr(name, "ld-linux") ||
      strstr(name, "linux-vdso") || !first_time(o.base, name))
    return 0;
  const ElfW(Rela) *jmprel = NULL, *rela = NULL;
  size_t jmpsz = 0, relasz = 0;
  int pltrela = 1;
  for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
    switch (d->d_tag) {
    case DT_SYMTAB: o.symtab = (const ElfW(Sym) *)dptr(o.base, d->d_un.d_ptr); break;
    case DT_STRTAB: o.strtab = (const char *)dptr(o.base, d->d_un.d_ptr); break;
    case DT_STRSZ: o.strsz = d->d_un.d_val; break;
    case DT_JMPREL: jmprel = (const ElfW(Rela) *)dptr(o.base, d->d_un.d_ptr); break;
    case DT_PLTRELSZ: jmpsz = d->d_un.d_val; break;
    case DT_PLTREL: pltrela = d->d_un.d_val == DT_RELA; break;
    case DT_RELA: rela = (const ElfW(Rela) *)dptr(o.base, d->d_un.d_ptr); break;
    case DT_RELASZ: relasz = d->d_un.d_val; break;
    default: break;
    }
  }
  if (!o.symtab || !o.strtab)
    return 0;
  if (jmprel && pltrela)
    patch_relocs(&o, jmprel, jmpsz, p);
  if (rela)
    patch_relocs(&o, rela, relasz, p);
  return 0;
}

int cl_got_patch(uintptr_t nccl_start, uintptr_t nccl_end)
{
  struct patch p = {nccl_start, nccl_end, (uintptr_t)&cl_got_patch, 0};
  dl_iterate_phdr(visit, &p);
  return p.patched;
}
#else
int cl_got_patch(uintptr_t nccl_start, uintptr_t nccl_end)
{
  (void)nccl_start;
  (void)nccl_end;
  return 0; /* other architectures: NCCL calls are not recorded */
}
#endif

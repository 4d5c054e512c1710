/* callsite.c - choosing the user's frame of a recorded stack.
 *
 * Frames are walked innermost to outermost.  A frame is skipped when its
 * module is a CUDA, vendor, framework or system library (by basename, see
 * vendor_prefixes), and, for code inside other objects (a statically linked
 * cudart lives in the program itself), when its function is unknown or
 * looks like CUDA's (cuda*, __cuda*, cudart::*, cu[A-Z]*).  nvcc's launch
 * stub (__device_stub_*) and the kernel's host function that calls it are
 * skipped too, so that a <<<...>>> launch resolves to its line.  Among the
 * remaining frames the first one with file:line wins; failing that the
 * first with a function name; failing that the first unnamed frame in a
 * non-vendor module (reported as module+0xoffset: its file is gone or
 * changed, or it has no symbol). */
#include "callsite.h"

#include <stdlib.h>
#include <string.h>

#include "u64map.h"
#include "util.h"

struct stack {
  const struct sym_frame **frames;
  size_t n;
  struct callsite site;
  int resolved; /* 0 not yet, 1 site found, -1 none */
};

struct callsites {
  sqlite3 *db;
  sqlite3_stmt *get; /* SELECT frames FROM stacks WHERE id=? */
  struct symbolizer *sym;
  struct stack **stacks;
  size_t nstacks, capstacks;
  struct u64map by_id;
};

/* basename prefixes of libraries that never hold the user's call site */
static const char *const vendor_prefixes[] = {
    "libcuda", "libcudart", "libcupti", "libcublas", "libcublasLt",
    "libcudnn", "libnccl", "libcufft", "libcurand", "libcusparse",
    "libcusolver", "libnvrtc", "libnvJitLink", "libnvToolsExt", "libnvidia-",
    "libtorch", "libc10", "libcudalens", "libpython", "libstdc++",
    "libc.so", "libc-", "libpthread", "libdl.so", "libdl-", "libgcc_s",
    "ld-linux", "ld64.so", NULL};

/* folders of Python packages whose native code is framework code */
static const char *const vendor_dirs[] = {
    "/site-packages/torch/", "/site-packages/nvidia/",
    "/site-packages/triton/", "/dist-packages/torch/",
    "/dist-packages/nvidia/", "/dist-packages/triton/", NULL};

bool callsite_vendor_module(const char *path)
{
  if (!path)
    return false;
  const char *base = path_base(path);
  for (const char *const *p = vendor_prefixes; *p; p++)
    if (strncmp(base, *p, strlen(*p)) == 0)
      return true;
  for (const char *const *p = vendor_dirs; *p; p++)
    if (strstr(path, *p))
      return true;
  /* the Python interpreter (python3, python3.12) */
  if (strncmp(base, "python", 6) == 0 && !strchr(base, '/') &&
      !strstr(base, ".so"))
    return true;
  return false;
}

bool callsite_vendor_function(const char *name)
{
  if (!name || !*name)
    return true;
  if (strncmp(name, "cuda", 4) == 0 || strncmp(name, "__cuda", 6) == 0 ||
      strncmp(name, "cudart::", 8) == 0)
    return true;
  if (name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z')
    return true;
  return false;
}

struct callsites *callsites_new(sqlite3 *db)
{
  struct callsites *cs = xcalloc(1, sizeof *cs);
  cs->db = db;
  cs->sym = symbolizer_new(db);
  u64map_init(&cs->by_id);
  if (sqlite3_prepare_v2(db, "SELECT frames FROM stacks WHERE id=?1", -1,
                         &cs->get, NULL) != SQLITE_OK)
    cs->get = NULL;
  return cs;
}

void callsites_free(struct callsites *cs)
{
  if (!cs)
    return;
  for (size_t i = 0; i < cs->nstacks; i++) {
    free(cs->stacks[i]->frames);
    free(cs->stacks[i]);
  }
  free(cs->stacks);
  u64map_free(&cs->by_id);
  sqlite3_finalize(cs->get);
  symbolizer_free(cs->sym);
  free(cs);
}

static struct stack *load_stack(struct callsites *cs, int64_t id)
{
  uint64_t idx;
  if (u64map_get(&cs->by_id, (uint64_t)id, &idx))
    return cs->stacks[idx];
  struct stack *s = xcalloc(1, sizeof *s);
  if (cs->get) {
    sqlite3_bind_int64(cs->get, 1, id);
    if (sqlite3_step(cs->get) == SQLITE_ROW) {
      const unsigned char *b = sqlite3_column_blob(cs->get, 0);
      size_t len = (size_t)sqlite3_column_bytes(cs->get, 0);
      s->n = b ? len / 8 : 0;
      s->frames = xcalloc(s->n, sizeof *s->frames);
      for (size_t i = 0; i < s->n; i++) {
        uint64_t a = 0;
        for (int k = 7; k >= 0; k--)
          a = a << 8 | b[i * 8 + (size_t)k];
        s->frames[i] = symbolize(cs->sym, a);
      }
    }
    sqlite3_reset(cs->get);
  }
  GROW(cs->stacks, cs->capstacks, cs->nstacks + 1);
  cs->stacks[cs->nstacks] = s;
  u64map_put(&cs->by_id, (uint64_t)id, cs->nstacks++);
  return s;
}

const struct sym_frame *const *callsite_stack(struct callsites *cs,
                                              int64_t stack_id, size_t *n)
{
  struct stack *s = load_stack(cs, stack_id);
  *n = s->n;
  return s->n ? (const struct sym_frame *const *)s->frames : NULL;
}

static bool device_stub(const struct sym_frame *f)
{
  return f && f->usable && f->function &&
         strncmp(f->function, "__device_stub_", 14) == 0;
}

static void pick(struct stack *s)
{
  int tier_best = 0, best = -1;
  for (size_t i = 0; i < s->n; i++) {
    const struct sym_frame *f = s->frames[i];
    if (!f->module || callsite_vendor_module(f->module))
      continue;
    /* a <<<...>>> launch goes through nvcc's generated stub
     * (__device_stub__<mangled>, in a .cudafe1.stub.c file) and the kernel's
     * host-side function (named like the kernel, at its __global__ line):
     * the launch site is the frame after both */
    if (device_stub(f)) {
      if (i + 1 < s->n && !device_stub(s->frames[i + 1]))
        i++;
      continue;
    }
    int tier = 1; /* unnamed code in a non-vendor object: last resort */
    if (f->usable && f->function) {
      if (callsite_vendor_function(f->function))
        continue; /* a statically linked cudart inside the program */
      tier = f->file ? 3 : 2;
    }
    if (tier > tier_best) {
      tier_best = tier;
      best = (int)i;
      if (tier == 3)
        break;
    }
  }
  s->resolved = -1;
  memset(&s->site, 0, sizeof s->site);
  s->site.frame = -1;
  if (best < 0)
    return;
  const struct sym_frame *f = s->frames[best];
  s->site.file = f->file;
  s->site.line = f->line;
  s->site.function = f->function;
  s->site.module = f->module;
  s->site.offset = f->offset;
  s->site.address = f->address;
  s->site.frame = best;
  s->resolved = 1;
}

int callsite_resolve(struct callsites *cs, int64_t stack_id,
                     struct callsite *out)
{
  struct stack *s = load_stack(cs, stack_id);
  if (!s->resolved)
    pick(s);
  *out = s->site;
  return s->resolved > 0 ? 0 : -1;
}

struct location callsite_location(const struct callsite *c)
{
  struct location l = {0};
  if (!c || c->frame < 0)
    return l;
  l.file = (char *)c->file;
  l.line = c->line;
  l.function = (char *)c->function;
  l.module = (char *)c->module;
  l.offset = c->offset;
  return l;
}

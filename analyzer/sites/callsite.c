/* callsite.c - choosing the user's frame of a recorded stack.
 *
 * Frames are walked innermost to outermost.  A frame is skipped when its
 * module is a CUDA, vendor, framework or system library (by basename, see
 * the *_prefixes lists, or by its Python package, see vendor_packages):
 * such a frame is never read from its file to choose, and a shown one is
 * read from the symbol table alone, and, for code inside other objects (a statically linked
 * cudart lives in the program itself), when its function is unknown or
 * looks like CUDA's (cuda*, __cuda*, cudart::*, cu[A-Z]*).  nvcc's launch
 * stub (__device_stub_*) and the kernel's host function that calls it are
 * skipped too, so that a <<<...>>> launch resolves to its line.  Among the
 * remaining frames the first one with file:line wins; failing that the
 * first with a function name; failing that the first unnamed frame in a
 * non-vendor module (reported as module+0xoffset: its file is gone or
 * changed, or it has no symbol).  Code of cuda_runtime.h inlined into the
 * chosen frame (an optimized build's cudaMallocHost<T>) is shown at the
 * inline's call site, the user's line.  The outermost frame named like
 * CUDA's before the chosen one, in the program itself, is the entry point
 * the program called (called_api).
 *
 * A call made from Python also has calls.pystack, "file:line:function"
 * lines innermost first; its Python site is the innermost frame of the
 * user's code (a file outside site-packages/dist-packages, the standard
 * library and frozen modules), else the innermost frame of another
 * installed package than torch, nvidia or triton (torchvision, a trainer).  callsite_location() prefers it when the native site is
 * missing, has no file:line or is inside the Python installation (ctypes,
 * libffi, extension modules in site-packages). */
#include "sites/callsite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "u64map.h"
#include "util.h"

struct stack {
  const struct sym_frame **frames;
  size_t n;
  struct callsite site;
  int resolved; /* 0 not yet, 1 site found, -1 none */
  char *called_api; /* site.called_api */
};

/* a recorded Python stack, parsed */
struct pyframe {
  char *file;       /* NULL when the line has no ':' */
  int line;
  char *function;
};
struct pystack {
  char *text;
  struct pyframe *f;
  size_t n;
  int chosen;       /* index of the user's frame, -1 none */
};

struct callsites {
  struct callsite_source src;
  struct symbolizer *sym;
  struct stack **stacks;
  size_t nstacks, capstacks;
  struct u64map by_id;
  struct pystack **pystacks;
  size_t npystacks, cappystacks;
  struct u64map by_pyid;
};

/* Basename prefixes of libraries that never hold the user's call site, in
 * three groups: CUDA itself and the system (what every CUDA call passes
 * through), NVIDIA's libraries built on CUDA (closed code that issues its
 * own stream work, often on streams it creates), and frameworks. */
static const char *const cuda_system_prefixes[] = {
    "libcuda", "libcudart", "libcupti", "libnvrtc", "libnvJitLink",
    "libnvToolsExt", "libnvidia-", "libcudalens", "libpython", "libstdc++",
    "libc.so", "libc-", "libpthread", "libdl.so", "libdl-", "libgcc_s",
    "ld-linux", "ld64.so", NULL};
static const char *const nvidia_library_prefixes[] = {
    "libcublas", "libcudnn", "libnccl", "libcufft", "libcurand",
    "libcusparse", "libcusolver", "libcutensor", "libnvjpeg", "libnpp",
    "libnvinfer", NULL};
static const char *const framework_prefixes[] = {"libtorch", "libc10", NULL};

static bool has_prefix(const char *base, const char *const *prefixes)
{
  for (const char *const *p = prefixes; *p; p++)
    if (strncmp(base, *p, strlen(*p)) == 0)
      return true;
  return false;
}

/* folders of Python packages whose native code is framework code: PyTorch,
 * NVIDIA's wheels, Triton, JAX (jaxlib; the CUDA plugin's PJRT library
 * under jax_plugins/, its kernels under jax_cuda12_plugin/ or
 * jax_cuda13_plugin/), CuPy, TensorRT */
static const char *const vendor_packages[] = {
    "torch/", "nvidia/", "triton/", "jaxlib/", "jax_plugins/", "jax_cuda",
    "cupy/", "cupy_backends/", "tensorrt/", "tensorrt_libs/", NULL};

/* PATH is inside a Python package of vendor_packages */
static bool in_vendor_package(const char *path)
{
  static const char *const roots[] = {"/site-packages/", "/dist-packages/",
                                      NULL};
  for (const char *const *r = roots; *r; r++)
    for (const char *q = path; (q = strstr(q, *r)); q++)
      if (has_prefix(q + strlen(*r), vendor_packages))
        return true;
  return false;
}

bool callsite_vendor_module(const char *path)
{
  if (!path)
    return false;
  const char *base = path_base(path);
  if (has_prefix(base, cuda_system_prefixes) ||
      has_prefix(base, nvidia_library_prefixes) ||
      has_prefix(base, framework_prefixes))
    return true;
  if (in_vendor_package(path))
    return true;
  /* the Python interpreter (python3, python3.12) */
  if (strncmp(base, "python", 6) == 0 && !strchr(base, '/') &&
      !strstr(base, ".so"))
    return true;
  return false;
}

size_t callsite_symbolized(const struct callsites *cs)
{
  return symbolizer_lookups(cs->sym);
}

bool callsite_python_module(const char *path)
{
  static const char *const parts[] = {"/site-packages/", "/dist-packages/",
                                      "/lib-dynload/", "/lib/python3",
                                      "/lib64/python3", NULL};
  if (!path)
    return false;
  for (const char *const *p = parts; *p; p++)
    if (strstr(path, *p))
      return true;
  return strncmp(path_base(path), "libffi", 6) == 0;
}

/* "/lib/python3.N/" or "/lib64/python3.N/" not followed by a package
 * folder: the standard library */
static bool stdlib_file(const char *file)
{
  for (const char *p = file; (p = strstr(p, "/python3.")); p++) {
    bool lib = (p - file >= 4 && strncmp(p - 4, "/lib", 4) == 0) ||
               (p - file >= 6 && strncmp(p - 6, "/lib64", 6) == 0);
    const char *q = p + 9;
    if (!lib || *q < '0' || *q > '9')
      continue;
    while (*q >= '0' && *q <= '9')
      q++;
    if (*q != '/')
      continue;
    q++;
    return strncmp(q, "site-packages/", 14) != 0 &&
           strncmp(q, "dist-packages/", 14) != 0;
  }
  return false;
}

/* the folder after the last site-packages/ or dist-packages/ of FILE, NULL
 * when there is none */
static const char *installed_package(const char *file)
{
  const char *pkg = NULL;
  for (const char *q = file; (q = strstr(q, "-packages/")); q++)
    if (q - file >= 4 && (strncmp(q - 4, "site", 4) == 0 ||
                          strncmp(q - 4, "dist", 4) == 0))
      pkg = q + 10;
  return pkg;
}

bool callsite_installed_pyfile(const char *file)
{
  return file && installed_package(file) != NULL;
}

bool callsite_vendor_pyfile(const char *file)
{
  static const char *const packages[] = {"torch/", "nvidia/", "triton/",
                                         NULL};
  if (!file || !*file || strcmp(file, "?") == 0)
    return true; /* unknown: not worth showing */
  if (strncmp(file, "<frozen ", 8) == 0)
    return true;
  /* an installed package is the folder after the last site-packages/ (the
   * venv itself may live in a folder named torch/); elsewhere a folder of
   * that name is a checkout of the framework */
  const char *pkg = installed_package(file);
  for (const char *const *p = packages; *p; p++) {
    size_t len = strlen(*p);
    if (pkg) {
      if (strncmp(pkg, *p, len) == 0)
        return true;
      continue;
    }
    if (strncmp(file, *p, len) == 0)
      return true;
    for (const char *q = file; (q = strstr(q, *p)); q++)
      if (q > file && q[-1] == '/')
        return true;
  }
  return stdlib_file(file);
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

struct callsites *callsites_new(const struct callsite_source *src)
{
  struct callsites *cs = xcalloc(1, sizeof *cs);
  cs->src = *src;
  cs->src.modules = NULL; /* copied into the symbolizer */
  cs->src.nmodules = 0;
  cs->sym = symbolizer_new(src->modules, src->nmodules);
  u64map_init(&cs->by_id);
  u64map_init(&cs->by_pyid);
  return cs;
}

void callsites_free(struct callsites *cs)
{
  if (!cs)
    return;
  for (size_t i = 0; i < cs->nstacks; i++) {
    free(cs->stacks[i]->called_api);
    free(cs->stacks[i]->frames);
    free(cs->stacks[i]);
  }
  free(cs->stacks);
  for (size_t i = 0; i < cs->npystacks; i++) {
    struct pystack *p = cs->pystacks[i];
    for (size_t k = 0; k < p->n; k++) {
      free(p->f[k].file);
      free(p->f[k].function);
    }
    free(p->f);
    free(p->text);
    free(p);
  }
  free(cs->pystacks);
  u64map_free(&cs->by_id);
  u64map_free(&cs->by_pyid);
  symbolizer_free(cs->sym);
  free(cs);
}

static struct stack *load_stack(struct callsites *cs, int64_t id)
{
  uint64_t idx;
  if (u64map_get(&cs->by_id, (uint64_t)id, &idx))
    return cs->stacks[idx];
  struct stack *s = xcalloc(1, sizeof *s);
  uint64_t *addr = NULL;
  s->n = cs->src.stack(cs->src.arg, id, &addr);
  s->frames = xcalloc(s->n, sizeof *s->frames);
  /* the object file is read only for the frames a report needs */
  for (size_t i = 0; i < s->n; i++)
    s->frames[i] = symbolize_module_only(cs->sym, addr[i]);
  free(addr);
  GROW(cs->stacks, cs->capstacks, cs->nstacks + 1);
  cs->stacks[cs->nstacks] = s;
  u64map_put(&cs->by_id, (uint64_t)id, cs->nstacks++);
  return s;
}

/* frame I of S, symbolized: a vendor library's frame from its symbol
 * table alone (it is never the user's line; its DWARF, when it has any,
 * can be hundreds of megabytes) */
static const struct sym_frame *frame_at(struct callsites *cs, struct stack *s,
                                        size_t i)
{
  uint64_t a = s->frames[i]->address;
  return s->frames[i] = callsite_vendor_module(s->frames[i]->module)
                            ? symbolize_symbol(cs->sym, a)
                            : symbolize(cs->sym, a);
}

const struct sym_frame *const *callsite_stack(struct callsites *cs,
                                              int64_t stack_id, size_t *n)
{
  struct stack *s = load_stack(cs, stack_id);
  for (size_t i = 0; i < s->n; i++)
    frame_at(cs, s, i);
  *n = s->n;
  return s->n ? (const struct sym_frame *const *)s->frames : NULL;
}

/* a header of the CUDA toolkit whose inline functions the program
 * compiles in: cuda_runtime.h, cuda_runtime_api.h */
static bool cuda_header(const char *file)
{
  return file && strncmp(path_base(file), "cuda_runtime", 12) == 0;
}

static bool device_stub(const struct sym_frame *f)
{
  return f && f->usable && f->function &&
         strncmp(f->function, "__device_stub_", 14) == 0;
}

/* "cudaError cudaMallocHost<float>(float**, unsigned long, unsigned int)"
 * (a template's demangled name starts with its return type) ->
 * "cudaMallocHost" (malloc'd) */
static char *api_base_name(const char *function)
{
  size_t n = strcspn(function, "<(");
  for (size_t i = n; i > 0; i--)
    if (function[i - 1] == ' ') {
      function += i;
      n -= i;
      break;
    }
  char *r = xmalloc(n + 1);
  memcpy(r, function, n);
  r[n] = 0;
  return r;
}

static void pick(struct callsites *cs, struct stack *s)
{
  int tier_best = 0, best = -1, outer = -1, entry = -1;
  for (size_t i = 0; i < s->n; i++) {
    const struct sym_frame *f = s->frames[i];
    /* by the module's path: a vendor library's file is not read */
    if (!f->module || callsite_vendor_module(f->module))
      continue;
    f = frame_at(cs, s, i);
    /* a <<<...>>> launch goes through nvcc's generated stub
     * (__device_stub__<mangled>, in a .cudafe1.stub.c file) and the kernel's
     * host-side function (named like the kernel, at its __global__ line):
     * the launch site is the frame after both */
    if (device_stub(f)) {
      /* the kernel's host function: its own frame, or (optimized) inlined
       * into the caller, whose line is then the inline's call site */
      const struct sym_frame *next =
          i + 1 < s->n ? frame_at(cs, s, i + 1) : NULL;
      if (next && !device_stub(next) && next->outer_file) {
        outer = i + 1;
        break;
      }
      if (next && !device_stub(next))
        i++;
      continue;
    }
    int tier = 1; /* unnamed code in a non-vendor object: last resort */
    if (f->usable && f->function) {
      if (callsite_vendor_function(f->function)) {
        /* a statically linked cudart inside the program, or an inline
         * template of cuda_runtime.h: the outermost is what was called */
        if (best < 0 && strncmp(f->function, "cuda", 4) == 0)
          entry = (int)i;
        continue;
      }
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
  s->site.py_frame = -1;
  if (outer >= 0)
    best = outer;
  if (best < 0)
    return;
  if (entry >= 0 && entry < best)
    s->called_api = api_base_name(s->frames[entry]->function);
  s->site.called_api = s->called_api;
  const struct sym_frame *f = s->frames[best];
  /* code of cuda_runtime.h's templates inlined into the user's function
   * (an optimized build): the user's line is the inline's call site */
  bool outer_line = best == outer || (f->outer_file && cuda_header(f->file));
  s->site.file = outer_line ? f->outer_file : f->file;
  s->site.line = outer_line ? f->outer_line : f->line;
  s->site.function = f->function;
  s->site.module = f->module;
  s->site.offset = f->offset;
  s->site.address = f->address;
  s->site.frame = best;
  s->resolved = 1;
}

const char *callsite_issuing_library(struct callsites *cs, int64_t stack_id)
{
  if (stack_id < 0)
    return NULL;
  /* by the modules' paths alone */
  struct stack *s = load_stack(cs, stack_id);
  const struct sym_frame *const *f = s->frames;
  for (size_t i = 0; i < s->n; i++) {
    if (!f[i]->module)
      return NULL;
    const char *base = path_base(f[i]->module);
    if (has_prefix(base, cuda_system_prefixes))
      continue;
    return has_prefix(base, nvidia_library_prefixes) ? base : NULL;
  }
  return NULL;
}

int callsite_resolve(struct callsites *cs, int64_t stack_id,
                     struct callsite *out)
{
  struct stack *s = load_stack(cs, stack_id);
  if (!s->resolved)
    pick(cs, s);
  *out = s->site;
  out->stack_id = stack_id;
  out->pystack_id = -1;
  return s->resolved > 0 ? 0 : -1;
}

/* one "file:line:function" line; the file may itself hold ':' */
static void parse_pyframe(const char *s, size_t len, struct pyframe *f)
{
  char *line = xcalloc(1, len + 1);
  memcpy(line, s, len);
  char *fn = strrchr(line, ':');
  char *ln = NULL;
  if (fn) {
    *fn = 0;
    ln = strrchr(line, ':');
  }
  if (!fn || !ln) {
    f->file = NULL;
    f->line = 0;
    f->function = NULL;
    free(line);
    return;
  }
  *ln = 0;
  f->file = xstrdup(line);
  f->line = atoi(ln + 1);
  f->function = fn[1] ? xstrdup(fn + 1) : NULL;
  free(line);
}

static struct pystack *load_pystack(struct callsites *cs, int64_t id)
{
  uint64_t idx;
  if (u64map_get(&cs->by_pyid, (uint64_t)id, &idx))
    return cs->pystacks[idx];
  struct pystack *p = xcalloc(1, sizeof *p);
  p->chosen = -1;
  p->text = xstrdup(cs->src.pystack(cs->src.arg, id));
  size_t cap = 0;
  for (const char *s = p->text; s && *s;) {
    const char *e = strchr(s, '\n');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    GROW(p->f, cap, p->n + 1);
    parse_pyframe(s, len, &p->f[p->n]);
    /* the user's code first; an installed package (torchvision, a
     * trainer) only when no frame is the user's */
    const char *file = p->f[p->n].file;
    if (file && !callsite_vendor_pyfile(file)) {
      if (!callsite_installed_pyfile(file) &&
          (p->chosen < 0 || callsite_installed_pyfile(p->f[p->chosen].file)))
        p->chosen = (int)p->n;
      else if (p->chosen < 0)
        p->chosen = (int)p->n;
    }
    p->n++;
    s = e ? e + 1 : s + len;
  }
  GROW(cs->pystacks, cs->cappystacks, cs->npystacks + 1);
  cs->pystacks[cs->npystacks] = p;
  u64map_put(&cs->by_pyid, (uint64_t)id, cs->npystacks++);
  return p;
}

int callsite_resolve_call(struct callsites *cs, int64_t seq,
                          struct callsite *out)
{
  int64_t stack, pystack;
  cs->src.call(cs->src.arg, seq, &stack, &pystack);
  return callsite_resolve_ids(cs, stack, pystack, out);
}

int callsite_resolve_ids(struct callsites *cs, int64_t stack,
                         int64_t pystack, struct callsite *out)
{
  memset(out, 0, sizeof *out);
  out->frame = -1;
  out->py_frame = -1;
  int found = 0;
  if (stack >= 0 && callsite_resolve(cs, stack, out) == 0)
    found = 1;
  out->stack_id = stack;
  out->pystack_id = pystack > 0 ? pystack : -1;
  if (pystack > 0) {
    const struct pystack *p = load_pystack(cs, pystack);
    out->py_stack = p->text;
    if (p->chosen >= 0) {
      const struct pyframe *f = &p->f[p->chosen];
      out->py_file = f->file;
      out->py_line = f->line;
      out->py_function = f->function;
      out->py_frame = p->chosen;
      found = 1;
    }
  }
  return found ? 0 : -1;
}

struct location callsite_location(const struct callsite *c)
{
  struct location l = {0};
  if (!c)
    return l;
  if (c->py_file && c->py_frame >= 0 &&
      (c->frame < 0 || !c->file || callsite_python_module(c->module))) {
    l.file = (char *)c->py_file;
    l.line = c->py_line;
    l.function = (char *)c->py_function;
    l.from_python = 1;
    l.pystack_id = c->pystack_id;
    l.py_frame = c->py_frame;
    return l;
  }
  if (c->frame < 0)
    return l;
  l.file = (char *)c->file;
  l.line = c->line;
  l.function = (char *)c->function;
  l.module = (char *)c->module;
  l.offset = c->offset;
  l.has_stack = 1;
  l.stack_id = c->stack_id;
  l.stack_frame = c->frame;
  return l;
}

void callsite_fill_callers(struct callsites *cs, struct location *l,
                           size_t depth)
{
  if (depth < 2 || l->ncallers)
    return;
  size_t max = depth - 1, n = 0;
  struct location *v = xcalloc(max, sizeof *v);
  if (l->from_python && l->pystack_id > 0) {
    const struct pystack *p = load_pystack(cs, l->pystack_id);
    for (size_t k = (size_t)l->py_frame + 1; k < p->n && n < max; k++) {
      v[n].file = xstrdup(p->f[k].file);
      v[n].line = p->f[k].line;
      v[n].function = xstrdup(p->f[k].function);
      n++;
    }
  } else if (l->has_stack && l->stack_id >= 0) {
    struct stack *s = load_stack(cs, l->stack_id);
    for (size_t k = (size_t)l->stack_frame + 1; k < s->n && n < max; k++) {
      const struct sym_frame *f = frame_at(cs, s, k);
      v[n].file = xstrdup(f->file);
      v[n].line = f->file ? f->line : 0;
      v[n].function = xstrdup(f->function);
      v[n].module = xstrdup(f->module);
      v[n].offset = f->offset;
      n++;
    }
  }
  if (!n) {
    free(v);
    return;
  }
  l->callers = v;
  l->ncallers = n;
}

/* cuda_runtime.h's inline templates that call an entry point of another
 * name: when the stack shows neither, the program called one of the two */
static const char *const inline_aliases[][2] = {
    {"cudaHostAlloc", "cudaMallocHost/cudaHostAlloc"},
    {"cudaEventCreateWithFlags", "cudaEventCreate/cudaEventCreateWithFlags"},
};

const char *callsite_user_api(struct callsites *cs, int64_t stack_id,
                              const char *api, char *buf, size_t len)
{
  snprintf(buf, len, "%s", api ? api : "?");
  char *v = strrchr(buf, '_');
  if (v && v[1] == 'v' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2))
    *v = 0;
  /* the per-thread default stream's entry points (nvcc
   * --default-stream per-thread): the program wrote the plain name */
  v = strrchr(buf, '_');
  if (v && (strcmp(v, "_ptsz") == 0 || strcmp(v, "_ptds") == 0))
    *v = 0;
  if (cs && stack_id >= 0) {
    struct callsite c;
    callsite_resolve(cs, stack_id, &c);
    if (c.called_api) {
      snprintf(buf, len, "%s", c.called_api);
      return buf;
    }
  }
  for (size_t i = 0; i < sizeof inline_aliases / sizeof *inline_aliases; i++)
    if (strcmp(buf, inline_aliases[i][0]) == 0) {
      snprintf(buf, len, "%s", inline_aliases[i][1]);
      break;
    }
  return buf;
}

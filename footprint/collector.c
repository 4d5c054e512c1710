/* collector.c - libcudalens-footprint.so, the footprint collector of issue
 * 23: preloaded into a separate run of a program (cudalens run --footprint),
 * without libcudalens.so (CUPTI and NVIDIA's Compute Sanitizer API cannot
 * both be active in one process with CUDA 13.0: tests/gpu/footprint/
 * README.md).  It loads the Sanitizer API (libsanitizer-public.so),
 * patches every module as it loads (sanitizerPatchInstructions with
 * SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS and _MEMCPY_ASYNC: the device
 * functions of patches.cu append each access to a buffer), and instruments
 * a sample of the launches of each kernel function (fp_summary.h): at
 * LAUNCH_BEGIN it points the patches at its buffer
 * (sanitizerSetLaunchCallbackData), at LAUNCH_END waits for the launch's
 * stream and reads the accesses back, and fp_summary.c keeps them relative
 * to the launch's pointer arguments (their layout from
 * cuFuncGetParamInfo, their values from the launch API call's argument
 * array).  Patched code runs in every launch of a patched module, sampled
 * or not, so once no new kernel function has come for a while the modules
 * are unpatched, one way ("the settle" below).  At exit it writes the
 * footprint file (fp_write, through libcudalens-sqlite.so beside it).  It
 * changes no result of the program: the patches only record, launches not
 * sampled get no buffer, and launches into a stream being captured are not
 * instrumented, nor is a stream being captured waited for (a capture may
 * not be synchronized: CUDA Programming Guide, CUDA Graphs, Prohibited and
 * Unhandled Operations).  Without the Sanitizer library it says so in one
 * line at exit (in a process that loaded CUDA) and does nothing else.
 *
 * Environment:
 *   CUDALENS_FOOTPRINT_OUTPUT   the footprint file (%p: the process id;
 *                               default cudalens-footprints.clfp)
 *   CUDALENS_FOOTPRINT_FIRST    launches of each kernel function instrumented
 *                               first (default 4)
 *   CUDALENS_FOOTPRINT_SPARSE   0: no more after those (default 1: then the
 *                               launches whose number is a power of two,
 *                               in modules still patched)
 *   CUDALENS_FOOTPRINT_SETTLE   launches without a kernel function not seen
 *                               before, after which the modules whose
 *                               functions have had their first launches are
 *                               unpatched (default 1000; 0: never, every
 *                               launch runs patched code)
 *   CUDALENS_FOOTPRINT_REPATCH  1 (experimental): a function first launched
 *                               from a module unpatched so patches it again
 *                               for that launch (default 0: the function is
 *                               missed, it gets no footprint)
 *   CUDALENS_DEBUGLEVEL         1 or more: one line at exit on stderr,
 *                               "cudalens: footprint: launches=N ..." (the
 *                               cost: launches that ran patched code,
 *                               instrumented, modules unpatched, functions
 *                               missed, stream waits)
 *   CUDALENS_FOOTPRINT_CAPACITY records kept per launch (default 1048576;
 *                               a record: an access, or a warp's coalesced
 *                               accesses; each kept once, fp_buffer.h)
 *   CUDALENS_FOOTPRINT_PATCHES  the patch fatbin (default
 *                               cudalens-footprint-patches.fatbin beside it)
 *   CUDALENS_SANITIZER_LIB      libsanitizer-public.so (default: the search
 *                               path, then $CUDA_HOME/compute-sanitizer and
 *                               /usr/local/cuda/compute-sanitizer) */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sanitizer.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fp_summary.h"
#include "sqlite_api.h"

/* ---- the Sanitizer API, loaded ---------------------------------------------- */
#define SAN_FUNCTIONS(X)                                                       \
  X(sanitizerSubscribe) X(sanitizerEnableDomain) X(sanitizerEnableCallback)    \
  X(sanitizerAlloc) X(sanitizerMemset) X(sanitizerMemcpyHostToDeviceAsync)    \
  X(sanitizerMemcpyDeviceToHost) X(sanitizerSetLaunchCallbackData)            \
  X(sanitizerStreamSynchronize) X(sanitizerAddPatchesFromFile)                \
  X(sanitizerPatchInstructions) X(sanitizerPatchModule)                     \
  X(sanitizerUnpatchModule)
static struct {
#define SAN_FIELD(f) __typeof__(f) *f;
  SAN_FUNCTIONS(SAN_FIELD)
#undef SAN_FIELD
} S;

static char patches[PATH_MAX], output[PATH_MAX], sample[64];
static unsigned first = 4;
static bool sparse = true;
static uint32_t capacity = 1u << 20;
static bool active;          /* subscribed */
static char problem[512];    /* why not, said at exit */
static atomic_long n_errors, n_launches;

/* this library's folder, with a slash, into DIR */
static void own_dir(char *dir, size_t n)
{
  Dl_info di;
  dir[0] = 0;
  if (dladdr((void *)own_dir, &di) && di.dli_fname) {
    const char *slash = strrchr(di.dli_fname, '/');
    if (slash)
      snprintf(dir, n, "%.*s/", (int)(slash - di.dli_fname), di.dli_fname);
  }
}

static void *load_sanitizer(void)
{
  const char *env = getenv("CUDALENS_SANITIZER_LIB");
  if (env && *env)
    return dlopen(env, RTLD_NOW | RTLD_LOCAL);
  void *h = dlopen("libsanitizer-public.so", RTLD_NOW | RTLD_LOCAL);
  const char *home = getenv("CUDA_HOME");
  char p[PATH_MAX];
  if (!h && home && *home) {
    snprintf(p, sizeof p, "%s/compute-sanitizer/libsanitizer-public.so", home);
    h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
  }
  if (!h)
    h = dlopen("/usr/local/cuda/compute-sanitizer/libsanitizer-public.so",
               RTLD_NOW | RTLD_LOCAL);
  return h;
}

/* ---- live allocations (resource callbacks) ---------------------------------- */
static struct fp_alloc *allocs;
static size_t n_allocs, cap_allocs;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;

/* per size, the device and managed allocations made so far (open
 * addressing): an allocation's index among those of its size, which the
 * report matches to the recorded run's (fp_unattributed.alloc_index) */
static struct { uint64_t size, count; } *sizes;
static size_t cap_sizes, n_sizes;

static uint64_t next_index(uint64_t size)
{
  if (2 * (n_sizes + 1) > cap_sizes) {
    size_t c = cap_sizes ? 2 * cap_sizes : 1024;
    __typeof__(sizes) t = calloc(c, sizeof *t);
    if (!t)
      return 0;
    for (size_t i = 0; i < cap_sizes; i++)
      if (sizes[i].count) {
        size_t j = (sizes[i].size * 0x9e3779b97f4a7c15ULL >> 20) & (c - 1);
        while (t[j].count)
          j = (j + 1) & (c - 1);
        t[j] = sizes[i];
      }
    free(sizes);
    sizes = t;
    cap_sizes = c;
  }
  size_t j = (size * 0x9e3779b97f4a7c15ULL >> 20) & (cap_sizes - 1);
  while (sizes[j].count && sizes[j].size != size)
    j = (j + 1) & (cap_sizes - 1);
  if (!sizes[j].count) {
    sizes[j].size = size;
    n_sizes++;
  }
  return ++sizes[j].count;
}

static void alloc_add(uint64_t start, uint64_t size, uint32_t flags)
{
  pthread_mutex_lock(&alloc_lock);
  /* device or managed memory the program allocated (not module globals,
   * host memory or the runtime's own) */
  uint64_t index = flags & (SANITIZER_MEMORY_FLAG_MODULE |
                            SANITIZER_MEMORY_FLAG_HOST_MAPPED |
                            SANITIZER_MEMORY_FLAG_HOST_PINNED |
                            SANITIZER_MEMORY_FLAG_PEER |
                            SANITIZER_MEMORY_FLAG_CG_RUNTIME |
                            SANITIZER_MEMORY_FLAG_CNP)
                       ? 0
                       : next_index(size);
  if (n_allocs == cap_allocs) {
    size_t c = cap_allocs ? 2 * cap_allocs : 256;
    struct fp_alloc *a = realloc(allocs, c * sizeof *a);
    if (a) {
      allocs = a;
      cap_allocs = c;
    }
  }
  if (n_allocs < cap_allocs)
    allocs[n_allocs++] = (struct fp_alloc){start, size, index};
  pthread_mutex_unlock(&alloc_lock);
}

static void alloc_remove(uint64_t start)
{
  pthread_mutex_lock(&alloc_lock);
  for (size_t i = n_allocs; i-- > 0;)
    if (allocs[i].start == start) {
      allocs[i] = allocs[--n_allocs];
      break;
    }
  pthread_mutex_unlock(&alloc_lock);
}

static int alloc_find(uint64_t addr, struct fp_alloc *a)
{
  int found = 0;
  pthread_mutex_lock(&alloc_lock);
  for (size_t i = 0; i < n_allocs && !found; i++)
    if (addr >= allocs[i].start && addr - allocs[i].start < allocs[i].size) {
      *a = allocs[i];
      found = 1;
    }
  pthread_mutex_unlock(&alloc_lock);
  return found;
}

/* ---- kernel parameters (cuFuncGetParamInfo) ---------------------------------- */
#define MAX_PARAMS 64
#define MAX_WORDS 128
typedef CUresult (*param_info_fn)(void *, size_t, size_t *, size_t *);
typedef CUresult (*is_capturing_fn)(CUstream, CUstreamCaptureStatus *);

struct layout {
  void *func;
  unsigned n;
  uint16_t size[MAX_PARAMS];
  struct layout *next;
};
static struct layout *layouts;
static pthread_mutex_t layout_lock = PTHREAD_MUTEX_INITIALIZER;
static param_info_fn func_info, kernel_info;
static is_capturing_fn is_capturing;

static void *driver_symbol(const char *name)
{
  /* the driver the program loaded (the runtime opens it locally) */
  void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  void *f = dlsym(h ? h : RTLD_DEFAULT, name);
  if (h)
    dlclose(h);
  return f;
}

static const struct layout *layout_of(CUfunction func)
{
  static bool looked;
  pthread_mutex_lock(&layout_lock);
  for (struct layout *l = layouts; l; l = l->next)
    if (l->func == (void *)func) {
      pthread_mutex_unlock(&layout_lock);
      return l;
    }
  if (!looked) {
    func_info = (param_info_fn)driver_symbol("cuFuncGetParamInfo");
    kernel_info = (param_info_fn)driver_symbol("cuKernelGetParamInfo");
    is_capturing = (is_capturing_fn)driver_symbol("cuStreamIsCapturing");
    looked = true;
  }
  struct layout *l = calloc(1, sizeof *l);
  if (l) {
    l->func = (void *)func;
    size_t off, size;
    param_info_fn info = func_info;
    if (info && info(func, 0, &off, &size) != CUDA_SUCCESS)
      info = kernel_info;
    while (info && l->n < MAX_PARAMS &&
           info(func, l->n, &off, &size) == CUDA_SUCCESS)
      l->size[l->n++] = (uint16_t)(size > 0xffff ? 0xffff : size);
    l->next = layouts;
    layouts = l;
  }
  pthread_mutex_unlock(&layout_lock);
  return l;
}

/* ---- per thread: the launch in flight ---------------------------------------- */
#define THREAD_CTXS 8
static __thread struct {
  void **args;                 /* of the launch API call in progress */
  const struct layout *layout; /* their layout, from the driver's call */
  int depth;
  struct { CUcontext ctx; struct fp_buffer *dev; uint64_t *seen; } bufs[THREAD_CTXS];
  int active;                  /* an instrumented launch is open */
  struct fp_buffer *dev;
  uint64_t *seen; /* its table of records seen (fp_buffer.h) */
  char name[1024];
  CUfunction function;         /* of the launch in flight */
  bool due, repatched;         /* launch_module's */
  struct fp_word words[MAX_WORDS];
  unsigned n_words;
  struct fp_access *host;
  size_t host_cap;
} T;

static struct fp_buffer *thread_buffer(CUcontext ctx,
                                       Sanitizer_StreamHandle stream,
                                       uint64_t **seen)
{
  unsigned i;
  for (i = 0; i < THREAD_CTXS && T.bufs[i].ctx; i++)
    if (T.bufs[i].ctx == ctx) {
      *seen = T.bufs[i].seen;
      return T.bufs[i].dev;
    }
  if (i == THREAD_CTXS)
    return NULL;
  struct fp_buffer *dev = NULL;
  void *acc = NULL, *table = NULL;
  if (S.sanitizerAlloc(ctx, (void **)&dev, sizeof *dev) != SANITIZER_SUCCESS ||
      S.sanitizerAlloc(ctx, &acc, (size_t)capacity * sizeof(struct fp_access)) !=
          SANITIZER_SUCCESS ||
      S.sanitizerAlloc(ctx, &table, FP_SEEN_SLOTS * sizeof(uint64_t)) !=
          SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_errors, 1);
    return NULL;
  }
  struct fp_buffer h = {0, capacity, (struct fp_access *)acc, (uint64_t *)table};
  if (S.sanitizerMemcpyHostToDeviceAsync(dev, &h, sizeof h, stream) !=
      SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_errors, 1);
    return NULL;
  }
  T.bufs[i].ctx = ctx;
  T.bufs[i].dev = dev;
  T.bufs[i].seen = *seen = (uint64_t *)table;
  return dev;
}

static void read_args(CUfunction func)
{
  T.n_words = 0;
  if (!T.args)
    return;
  const struct layout *l = T.layout ? T.layout : layout_of(func);
  if (!l)
    return;
  for (unsigned p = 0; p < l->n && T.n_words < MAX_WORDS; p++)
    for (unsigned w = 0; w < l->size[p] / 8u && T.n_words < MAX_WORDS; w++) {
      struct fp_word *x = &T.words[T.n_words++];
      memcpy(&x->value, (const char *)T.args[p] + 8 * w, 8);
      x->param = (uint16_t)p;
      x->offset = (uint16_t)(8 * w);
    }
}

/* ---- modules, their functions and the settle --------------------------------
 * Patched code runs in every launch of a patched module, sampled or not (a
 * device call at each memory instruction), so a module is unpatched
 * (sanitizerUnpatchModule: "Remove any instrumentation of a CUDA module
 * performed by previous calls to sanitizerPatchModule", sanitizer_patching.h)
 * once the process has settled, one way: CUDALENS_FOOTPRINT_SETTLE launches
 * since the last launch of a kernel function not seen before, at the entry
 * of the next launch API call (where no launch of the calling thread is
 * open).  Only modules
 * that are complete are unpatched: launched, every function seen from it has
 * had its due launches (its first FIRST, or as many as it had) instrumented
 * or given up, and no launch of it between LAUNCH_BEGIN and LAUNCH_END.
 * Before unpatching, the collector waits for every stream launched on since
 * its last such wait (kernels and graphs: a graph's kernel nodes come to no
 * LAUNCH_BEGIN here; sanitizerStreamSynchronize; the documentation does not
 * say that unpatching is safe while the module's launches run), and does not
 * wait while one of them is being captured (a capture may not be
 * synchronized).  A function first launched from a module unpatched this
 * way is missed (no footprint: the report falls back to its guess) unless
 * CUDALENS_FOOTPRINT_REPATCH=1 patches the module again at that launch's
 * LAUNCH_BEGIN; the documentation does not say whether that patch applies
 * to that launch, so an instrumented launch of a re-patched module that
 * recorded nothing is counted lost, not kept as a footprint.  The API user
 * serializes the patching calls (sanitizer_patching.h: "an API user must
 * serialize access to sanitizerPatchModule and sanitizerUnpatchModule on
 * the same module"): everything here is under patch_lock, the waits too
 * (no launch begins meanwhile).  A wait, like the one at the end of each
 * instrumented launch, would not end for a stream whose work waits for
 * work the program has not yet submitted (stream memory operations, a
 * collective launched one device at a time); SETTLE=0 avoids it. */
struct module {
  CUmodule mod;
  CUcontext ctx;
  unsigned gen;       /* loads of this handle */
  bool known;         /* its MODULE_LOADED seen (else taken as patched:
                       * launches of it are sampled as before the settle) */
  bool loaded, patched;
  bool settled;       /* unpatched by the settle */
  unsigned open;      /* launches between LAUNCH_BEGIN and LAUNCH_END */
  unsigned functions; /* seen launched from it */
  unsigned incomplete; /* of those, with a due launch not resolved */
};
struct function {
  CUfunction f;      /* NULL: a free slot */
  uint32_t module;   /* index in modules */
  unsigned gen;      /* the module's load it belongs to */
  uint64_t launches; /* from this module */
  uint64_t resolved; /* of its due launches: instrumented or given up */
};
struct stream {
  CUcontext ctx;
  CUstream stream;
  Sanitizer_StreamHandle h;
};
static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext patched_ctx[64];
static unsigned n_patched_ctx;
static struct module *modules;
static size_t n_modules, cap_modules;
static struct function *functions; /* open addressing on f */
static size_t n_functions, cap_functions;
static struct stream *streams; /* launched on since the last settle wait */
static size_t n_streams, cap_streams, last_stream;
static uint64_t n_begun, last_new, next_try;
static atomic_bool settle_ready; /* settle_now is due at the next API entry */

static unsigned settle = 1000; /* CUDALENS_FOOTPRINT_SETTLE; 0: never */
static bool repatch;           /* CUDALENS_FOOTPRINT_REPATCH */
static unsigned debug;         /* CUDALENS_DEBUGLEVEL: the cost line */
/* the cost line's counts */
static atomic_long n_patched_launches, n_instrumented, n_mod_patched,
    n_mod_unpatched, n_mod_repatched, n_missed, n_lost, n_skipped, n_waits,
    n_settles;

/* at launch NOW (patch_lock held): SETTLE launches since the last new
 * function, and none of the settle's tries put off past NOW */
static bool settle_due(uint64_t now)
{
  return settle && now - last_new > settle && now >= next_try;
}

/* the launches of a function due for the sample's first part */
static uint64_t due_max(void)
{
  return first ? first : sparse ? 1 : 0;
}

static bool incomplete(const struct function *f)
{
  uint64_t due = f->launches < due_max() ? f->launches : due_max();
  return f->resolved < due;
}

static bool complete(const struct module *m)
{
  return m->loaded && m->functions && !m->incomplete && !m->open;
}

/* the module M of CTX (patch_lock held); NULL when out of memory */
static struct module *module_of(CUmodule m, CUcontext ctx)
{
  for (size_t i = n_modules; i-- > 0;)
    if (modules[i].mod == m)
      return &modules[i];
  if (n_modules == cap_modules) {
    size_t c = cap_modules ? 2 * cap_modules : 64;
    struct module *t = realloc(modules, c * sizeof *t);
    if (!t)
      return NULL;
    modules = t;
    cap_modules = c;
  }
  modules[n_modules] = (struct module){.mod = m, .ctx = ctx};
  return &modules[n_modules++];
}

static size_t fslot(CUfunction f, size_t cap)
{
  return ((uint64_t)(uintptr_t)f * 0x9e3779b97f4a7c15ULL >> 17) & (cap - 1);
}

/* the entry of F (patch_lock held), made when absent; NULL when out of
 * memory */
static struct function *function_of(CUfunction f)
{
  if (2 * (n_functions + 1) > cap_functions) {
    size_t c = cap_functions ? 2 * cap_functions : 1024;
    struct function *t = calloc(c, sizeof *t);
    if (!t)
      return NULL;
    for (size_t i = 0; i < cap_functions; i++)
      if (functions[i].f) {
        size_t j = fslot(functions[i].f, c);
        while (t[j].f)
          j = (j + 1) & (c - 1);
        t[j] = functions[i];
      }
    free(functions);
    functions = t;
    cap_functions = c;
  }
  size_t j = fslot(f, cap_functions);
  while (functions[j].f && functions[j].f != f)
    j = (j + 1) & (cap_functions - 1);
  if (!functions[j].f) {
    functions[j] = (struct function){.f = f, .module = UINT32_MAX};
    n_functions++;
  }
  return &functions[j];
}

/* the entry of F (patch_lock held), or NULL */
static struct function *function_find(CUfunction f)
{
  if (!cap_functions)
    return NULL;
  size_t j = fslot(f, cap_functions);
  while (functions[j].f && functions[j].f != f)
    j = (j + 1) & (cap_functions - 1);
  return functions[j].f ? &functions[j] : NULL;
}

/* patch module M (patch_lock held) */
static bool patch(struct module *m)
{
  unsigned i = 0;
  while (i < n_patched_ctx && patched_ctx[i] != m->ctx)
    i++;
  bool ok = true;
  if (i == n_patched_ctx) {
    ok = S.sanitizerAddPatchesFromFile(patches, m->ctx) == SANITIZER_SUCCESS;
    if (ok && n_patched_ctx < 64)
      patched_ctx[n_patched_ctx++] = m->ctx;
  }
  if (ok)
    ok = S.sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS,
                                      m->mod, "fp_global_access") ==
             SANITIZER_SUCCESS &&
         S.sanitizerPatchInstructions(SANITIZER_INSTRUCTION_MEMCPY_ASYNC,
                                      m->mod, "fp_memcpy_async") ==
             SANITIZER_SUCCESS &&
         S.sanitizerPatchModule(m->mod) == SANITIZER_SUCCESS;
  if (!ok)
    atomic_fetch_add(&n_errors, 1);
  m->patched = ok;
  return ok;
}

static void module_loaded(const Sanitizer_ResourceModuleData *d)
{
  pthread_mutex_lock(&patch_lock);
  struct module *m = module_of(d->module, d->context);
  if (m) {
    /* a handle loaded again is a new module: its functions start over */
    *m = (struct module){.mod = d->module, .ctx = d->context,
                         .gen = m->gen + 1, .known = true, .loaded = true};
    if (patch(m))
      atomic_fetch_add(&n_mod_patched, 1);
  } else {
    atomic_fetch_add(&n_errors, 1);
  }
  pthread_mutex_unlock(&patch_lock);
}

static void module_unloading(const Sanitizer_ResourceModuleData *d)
{
  pthread_mutex_lock(&patch_lock);
  for (size_t i = 0; i < n_modules; i++)
    if (modules[i].mod == d->module)
      modules[i].loaded = modules[i].patched = false;
  pthread_mutex_unlock(&patch_lock);
}

/* the streams of CTX (NULL: any) or the one with handle H (NULL: any) are
 * going away: no wait for them */
static void streams_forget(CUcontext ctx, Sanitizer_StreamHandle h)
{
  pthread_mutex_lock(&patch_lock);
  for (size_t i = n_streams; i-- > 0;)
    if ((!ctx || streams[i].ctx == ctx) && (!h || streams[i].h == h))
      streams[i] = streams[--n_streams];
  last_stream = 0;
  if (ctx)
    for (size_t i = 0; i < n_modules; i++)
      if (modules[i].ctx == ctx)
        modules[i].loaded = modules[i].patched = false;
  pthread_mutex_unlock(&patch_lock);
}

/* a launch on stream H (S) of CTX (patch_lock held) */
static void stream_seen(CUcontext ctx, CUstream s, Sanitizer_StreamHandle h)
{
  if (last_stream < n_streams && streams[last_stream].h == h)
    return;
  for (size_t i = 0; i < n_streams; i++)
    if (streams[i].h == h) {
      last_stream = i;
      return;
    }
  if (n_streams == cap_streams) {
    size_t c = cap_streams ? 2 * cap_streams : 16;
    struct stream *t = realloc(streams, c * sizeof *t);
    if (!t) {
      next_try = UINT64_MAX; /* a stream not known: never unpatch */
      return;
    }
    streams = t;
    cap_streams = c;
  }
  streams[n_streams] = (struct stream){ctx, s, h};
  last_stream = n_streams++;
}

/* a graph launch (its kernel nodes come to no LAUNCH_BEGIN of the launch
 * domain): its stream is waited for too before unpatching */
static void graph_launch(const Sanitizer_GraphLaunchData *g)
{
  if (g->isGraphUpload)
    return;
  pthread_mutex_lock(&patch_lock);
  stream_seen(g->context, g->stream, g->hStream);
  pthread_mutex_unlock(&patch_lock);
}

/* S may be waited for: not being captured (CUDA Programming Guide, CUDA
 * Graphs, Prohibited and Unhandled Operations); an error (e.g.
 * CUDA_ERROR_STREAM_CAPTURE_IMPLICIT for the legacy stream) says no */
static bool may_wait(CUstream s)
{
  if (!is_capturing)
    is_capturing = (is_capturing_fn)driver_symbol("cuStreamIsCapturing");
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  return !is_capturing || (is_capturing(s, &st) == CUDA_SUCCESS &&
                           st == CU_STREAM_CAPTURE_STATUS_NONE);
}

/* at the entry of a launch API call, no launch of this thread open
 * (patch_lock held; NOW: the launches begun so far): when the process has
 * settled, wait for the streams and unpatch the complete modules.  Not at a
 * LAUNCH_BEGIN: there, on an H100, the wait and the unpatch of a loop's one
 * module never returned (fp_test loop: no launch after the 1000th) */
static void settle_now(uint64_t now)
{
  if (!settle_due(now))
    return;
  next_try = now + settle; /* what is left waits that long */
  bool any = false;
  for (size_t i = 0; i < n_modules && !any; i++)
    any = modules[i].patched && complete(&modules[i]);
  if (!any)
    return;
  atomic_fetch_add(&n_settles, 1);
  for (size_t i = 0; i < n_streams; i++)
    if (!may_wait(streams[i].stream))
      return;
  bool ok = true;
  for (size_t i = 0; i < n_streams; i++) {
    atomic_fetch_add(&n_waits, 1);
    if (S.sanitizerStreamSynchronize(streams[i].h) != SANITIZER_SUCCESS)
      ok = false;
  }
  if (!ok) {
    atomic_fetch_add(&n_errors, 1);
    return;
  }
  n_streams = last_stream = 0;
  for (size_t i = 0; i < n_modules; i++) {
    struct module *m = &modules[i];
    if (!m->patched || !complete(m))
      continue;
    if (S.sanitizerUnpatchModule(m->mod) == SANITIZER_SUCCESS) {
      m->patched = false;
      m->settled = true;
      atomic_fetch_add(&n_mod_unpatched, 1);
    } else {
      atomic_fetch_add(&n_errors, 1);
    }
  }
}

/* what the LAUNCH_BEGIN of L decides before the sample (patch_lock taken
 * here): whether its module runs patched code, and (*REPATCHED) whether it
 * was patched again for this launch; the function's state for LAUNCH_END */
static bool launch_module(const Sanitizer_LaunchData *l, bool *due,
                          bool *repatched, bool *missed)
{
  *due = *repatched = *missed = false;
  pthread_mutex_lock(&patch_lock);
  uint64_t now = ++n_begun;
  if (settle_due(now))
    atomic_store_explicit(&settle_ready, true, memory_order_relaxed);
  stream_seen(l->context, l->stream, l->hStream);
  struct function *f = function_of(l->function);
  struct module *m = NULL;
  if (f && f->module < n_modules && modules[f->module].mod == l->module &&
      modules[f->module].gen == f->gen)
    m = &modules[f->module];
  if (f && !m) { /* a function not seen before (from this load) */
    m = module_of(l->module, l->context);
    if (!m) {
      pthread_mutex_unlock(&patch_lock);
      atomic_fetch_add(&n_errors, 1);
      return false;
    }
    *f = (struct function){.f = l->function, .module = (uint32_t)(m - modules),
                           .gen = m->gen};
    m->functions++;
    last_new = now;
    if (!m->patched && repatch && m->settled && patch(m)) {
      atomic_fetch_add(&n_mod_repatched, 1);
      *repatched = true;
    }
    if (m->known && !m->patched) {
      atomic_fetch_add(&n_missed, 1);
      *missed = true;
    }
  }
  bool patched = false;
  if (f && m) {
    m->open++;
    bool was = incomplete(f);
    *due = ++f->launches <= due_max();
    m->incomplete += (unsigned)incomplete(f) - (unsigned)was;
    patched = m->patched || !m->known;
  }
  pthread_mutex_unlock(&patch_lock);
  if (patched)
    atomic_fetch_add(&n_patched_launches, 1);
  return patched;
}

/* the LAUNCH_END of L: it is no longer open, and a due launch is resolved */
static void launch_module_end(const Sanitizer_LaunchData *l, bool due)
{
  pthread_mutex_lock(&patch_lock);
  struct function *f = function_find(l->function);
  if (f && f->module < n_modules && modules[f->module].mod == l->module &&
      modules[f->module].gen == f->gen) {
    struct module *m = &modules[f->module];
    if (m->open)
      m->open--;
    bool was = incomplete(f);
    if (due && f->resolved < f->launches)
      f->resolved++;
    m->incomplete -= (unsigned)was - (unsigned)incomplete(f);
  }
  pthread_mutex_unlock(&patch_lock);
}

static bool capturing(CUstream s)
{
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!is_capturing)
    is_capturing = (is_capturing_fn)driver_symbol("cuStreamIsCapturing");
  return is_capturing && is_capturing(s, &st) == CUDA_SUCCESS &&
         st != CU_STREAM_CAPTURE_STATUS_NONE;
}

static void read_back(const Sanitizer_LaunchData *l);

static void launch_begin(const Sanitizer_LaunchData *l)
{
  T.active = 0;
  const char *name = l->functionName ? l->functionName : "";
  uint64_t n = fp_launch(name);
  atomic_fetch_add(&n_launches, 1);
  bool missed, patched = launch_module(l, &T.due, &T.repatched, &missed);
  T.function = l->function;
  bool sampled = fp_sampled(n, first, sparse);
  if (sampled && !patched && !missed)
    atomic_fetch_add(&n_skipped, 1); /* its module was unpatched */
  /* launches not sampled run with no buffer: the patches return at once
   * (also in a module unpatched: in case the unpatch came too late) */
  struct fp_buffer *dev = NULL;
  uint64_t *seen = NULL;
  if (sampled && patched && !capturing(l->stream))
    dev = thread_buffer(l->context, l->hStream, &seen);
  if (dev && (S.sanitizerMemset(dev, 0, sizeof dev->count, l->hStream) !=
                  SANITIZER_SUCCESS ||
              S.sanitizerMemset(seen, 0, FP_SEEN_SLOTS * sizeof *seen,
                                l->hStream) != SANITIZER_SUCCESS))
    dev = NULL;
  if (S.sanitizerSetLaunchCallbackData(l->hLaunch, l->function, l->hStream,
                                       dev) != SANITIZER_SUCCESS || !dev)
    return;
  T.active = 1;
  T.dev = dev;
  snprintf(T.name, sizeof T.name, "%s", name);
  read_args(l->function);
}

static void launch_end(const Sanitizer_LaunchData *l)
{
  bool due = T.function == l->function && T.due;
  T.due = false;
  T.function = NULL;
  read_back(l);
  launch_module_end(l, due);
}

/* the instrumented launch L ended: its accesses, read back */
static void read_back(const Sanitizer_LaunchData *l)
{
  if (!T.active)
    return;
  T.active = 0;
  struct fp_buffer h;
  /* wait for the kernel, then copy on the launch's stream */
  if (S.sanitizerStreamSynchronize(l->hStream) != SANITIZER_SUCCESS ||
      S.sanitizerMemcpyDeviceToHost(&h, T.dev, sizeof h, l->hStream) !=
          SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_errors, 1);
    return;
  }
  uint32_t kept = h.count < h.capacity ? h.count : h.capacity;
  if (kept > T.host_cap) {
    struct fp_access *p = realloc(T.host, kept * sizeof *p);
    if (!p)
      return;
    T.host = p;
    T.host_cap = kept;
  }
  if (kept && S.sanitizerMemcpyDeviceToHost(T.host, h.accesses,
                                            kept * sizeof *T.host,
                                            l->hStream) != SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_errors, 1);
    return;
  }
  if (!h.count && T.repatched) {
    /* patched at its LAUNCH_BEGIN and nothing seen: perhaps it ran the
     * unpatched code; not a footprint */
    atomic_fetch_add(&n_lost, 1);
    return;
  }
  fp_instrumented(T.name, T.words, T.n_words, T.host, kept, h.count - kept,
                  alloc_find);
  atomic_fetch_add(&n_instrumented, 1);
}

/* the parameter structures of the launch calls, as far as the arguments
 * (generated_cuda_meta.h, generated_cuda_runtime_api_meta.h) */
struct cu_launch_kernel { /* cuLaunchKernel_params (and _ptsz) */
  CUfunction f;
  unsigned grid[3], block[3], shmem;
  CUstream stream;
  void **kernelParams;
  void **extra;
};
struct cu_launch_kernel_ex { /* cuLaunchKernelEx_params (and _ptsz) */
  const CUlaunchConfig *config;
  CUfunction f;
  void **kernelParams;
  void **extra;
};
struct cuda_launch_kernel { /* cudaLaunchKernel_v7000_params (and _ptsz) */
  const void *func;
  unsigned grid[3], block[3];
  void **args;
};
struct cuda_launch_kernel_ex { /* cudaLaunchKernelExC_v11060_params */
  const void *config;
  const void *func;
  void **args;
};

/* the kernel arguments of the launch API call in progress (the runtime's
 * launch calls the driver's, read there with the layout) */
static void launch_api(int driver, Sanitizer_CallbackId cbid,
                       const Sanitizer_CallbackData *d)
{
  void **args = NULL;
  CUfunction f = NULL;
  if (!driver) {
    if (cbid == SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC ||
        cbid == SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC_ptsz)
      args = ((const struct cuda_launch_kernel_ex *)d->functionParams)->args;
    else if (cbid == SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel ||
             cbid == SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel_ptsz)
      args = ((const struct cuda_launch_kernel *)d->functionParams)->args;
  } else if (cbid == SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx ||
             cbid == SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz) {
    const struct cu_launch_kernel_ex *P = d->functionParams;
    args = P->kernelParams, f = P->f;
  } else { /* cuLaunchKernel, cuLaunchCooperativeKernel: the same prefix */
    const struct cu_launch_kernel *P = d->functionParams;
    args = P->kernelParams, f = P->f;
  }
  if (d->callbackSite == SANITIZER_API_ENTER) {
    if (T.depth == 0 &&
        atomic_load_explicit(&settle_ready, memory_order_relaxed)) {
      pthread_mutex_lock(&patch_lock);
      atomic_store_explicit(&settle_ready, false, memory_order_relaxed);
      settle_now(n_begun);
      pthread_mutex_unlock(&patch_lock);
    }
    T.depth++;
    if (args) {
      T.args = args;
      T.layout = f ? layout_of(f) : NULL;
    }
  } else if (--T.depth <= 0) {
    T.depth = 0;
    T.args = NULL;
    T.layout = NULL;
  }
}

static void on_sanitizer(void *userdata, Sanitizer_CallbackDomain domain,
                         Sanitizer_CallbackId cbid, const void *cbdata)
{
  (void)userdata;
  switch (domain) {
  case SANITIZER_CB_DOMAIN_RESOURCE:
    if (cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED) {
      module_loaded(cbdata);
    } else if (cbid == SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
      module_unloading(cbdata);
    } else if (cbid == SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING) {
      const Sanitizer_ResourceStreamData *st = cbdata;
      if (st->hStream)
        streams_forget(NULL, st->hStream);
    } else if (cbid == SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      const Sanitizer_ResourceContextData *c = cbdata;
      if (c->context)
        streams_forget(c->context, NULL);
    } else if (cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC ||
               cbid == SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC) {
      const Sanitizer_ResourceMemoryData *m = cbdata;
      alloc_add(m->address, m->size, m->flags);
    } else if (cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE ||
               cbid == SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC) {
      const Sanitizer_ResourceMemoryData *m = cbdata;
      alloc_remove(m->address);
    }
    break;
  case SANITIZER_CB_DOMAIN_LAUNCH:
    if (cbid == SANITIZER_CBID_LAUNCH_BEGIN)
      launch_begin(cbdata);
    else if (cbid == SANITIZER_CBID_LAUNCH_END)
      launch_end(cbdata);
    break;
  case SANITIZER_CB_DOMAIN_GRAPHS:
    if (cbid == SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN)
      graph_launch(cbdata);
    break;
  case SANITIZER_CB_DOMAIN_DRIVER_API:
    launch_api(1, cbid, cbdata);
    break;
  case SANITIZER_CB_DOMAIN_RUNTIME_API:
    launch_api(0, cbid, cbdata);
    break;
  default:
    break;
  }
}

static void subscribe(void)
{
  Sanitizer_SubscriberHandle h;
  SanitizerResult r = S.sanitizerSubscribe(&h, on_sanitizer, NULL);
  if (r != SANITIZER_SUCCESS) {
    snprintf(problem, sizeof problem,
             "sanitizerSubscribe failed (%d): another tool holds the Sanitizer"
             " API", (int)r);
    return;
  }
  active = true;
  S.sanitizerEnableDomain(1, h, SANITIZER_CB_DOMAIN_RESOURCE);
  S.sanitizerEnableDomain(1, h, SANITIZER_CB_DOMAIN_LAUNCH);
  if (settle) /* the streams of graph launches, for the settle's wait */
    S.sanitizerEnableCallback(1, h, SANITIZER_CB_DOMAIN_GRAPHS,
                              SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN);
  static const Sanitizer_CallbackId drv[] = {
      SANITIZER_CBID_DRIVER_API_cuLaunchKernel,
      SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz,
      SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx,
      SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz,
      SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel,
      SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz};
  static const Sanitizer_CallbackId rt[] = {
      SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel,
      SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel_ptsz,
      SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC,
      SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC_ptsz,
      SANITIZER_CBID_RUNTIME_API___cudaLaunchKernel,
      SANITIZER_CBID_RUNTIME_API___cudaLaunchKernel_ptsz};
  for (size_t i = 0; i < sizeof drv / sizeof *drv; i++)
    S.sanitizerEnableCallback(1, h, SANITIZER_CB_DOMAIN_DRIVER_API, drv[i]);
  for (size_t i = 0; i < sizeof rt / sizeof *rt; i++)
    S.sanitizerEnableCallback(1, h, SANITIZER_CB_DOMAIN_RUNTIME_API, rt[i]);
}

/* ---- load and exit ------------------------------------------------------------ */
static unsigned env_uint(const char *name, unsigned dflt)
{
  const char *v = getenv(name);
  char *end;
  unsigned long n = v && *v ? strtoul(v, &end, 10) : 0;
  return v && *v && !*end && n <= 1u << 30 ? (unsigned)n : dflt;
}

/* a forked child counts its own launches (its CUDA is not the parent's) */
static void after_fork_child(void)
{
  fp_forget_after_fork();
  atomic_store(&n_launches, 0);
  atomic_store(&n_errors, 0);
  /* the parent's modules and streams are not the child's (the memory
   * leaks; another thread of the parent may have held the lock) */
  pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  patch_lock = fresh;
  modules = NULL, functions = NULL, streams = NULL;
  n_modules = cap_modules = n_functions = cap_functions = 0;
  n_streams = cap_streams = last_stream = n_patched_ctx = 0;
  n_begun = last_new = next_try = 0;
  atomic_store(&settle_ready, false);
  atomic_long *counts[] = {&n_patched_launches, &n_instrumented, &n_mod_patched,
                           &n_mod_unpatched, &n_mod_repatched, &n_missed,
                           &n_lost, &n_skipped, &n_waits, &n_settles};
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
    atomic_store(counts[i], 0);
}

__attribute__((constructor)) static void collector_init(void)
{
  pthread_atfork(NULL, NULL, after_fork_child);
  first = env_uint("CUDALENS_FOOTPRINT_FIRST", 4);
  sparse = env_uint("CUDALENS_FOOTPRINT_SPARSE", 1) != 0;
  capacity = env_uint("CUDALENS_FOOTPRINT_CAPACITY", 1u << 20);
  settle = env_uint("CUDALENS_FOOTPRINT_SETTLE", 1000);
  repatch = env_uint("CUDALENS_FOOTPRINT_REPATCH", 0) == 1;
  debug = env_uint("CUDALENS_DEBUGLEVEL", 0);
  if (!capacity)
    capacity = 1;
  snprintf(sample, sizeof sample, "%u,%d,%u", first, sparse, settle);
  char dir[PATH_MAX];
  own_dir(dir, sizeof dir);
  const char *p = getenv("CUDALENS_FOOTPRINT_PATCHES");
  if (p && *p)
    snprintf(patches, sizeof patches, "%s", p);
  else if (snprintf(patches, sizeof patches,
                    "%scudalens-footprint-patches.fatbin", dir) >=
           (int)sizeof patches)
    patches[0] = 0; /* no such file: sanitizerAddPatchesFromFile says so */
  const char *o = getenv("CUDALENS_FOOTPRINT_OUTPUT");
  o = o && *o ? o : "cudalens-footprints.clfp";
  /* %p: this process (several processes of one run each write theirs, or
   * merge into one file when it has no %p) */
  char *at = strstr(o, "%p");
  if (at)
    snprintf(output, sizeof output, "%.*s%d%s", (int)(at - o), o,
             (int)getpid(), at + 2);
  else
    snprintf(output, sizeof output, "%s", o);
  /* relative to where the program started (it may change directory) */
  if (output[0] != '/') {
    char cwd[PATH_MAX], rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s", output);
    if (getcwd(cwd, sizeof cwd) &&
        snprintf(output, sizeof output, "%s/%s", cwd, rel) >= (int)sizeof output)
      snprintf(output, sizeof output, "%s", rel); /* too long: as given */
  }
  void *h = load_sanitizer();
  if (!h) {
    snprintf(problem, sizeof problem,
             "cannot load the Compute Sanitizer API (libsanitizer-public.so;"
             " CUDALENS_SANITIZER_LIB names it): %s", dlerror());
    return;
  }
#define SAN_LOAD(f)                                                            \
  if (!(S.f = (__typeof__(f) *)dlsym(h, #f))) {                                \
    snprintf(problem, sizeof problem, "the Sanitizer library lacks %s", #f);   \
    return;                                                                    \
  }
  SAN_FUNCTIONS(SAN_LOAD)
#undef SAN_LOAD
  subscribe();
}

/* libcudalens-sqlite.so, beside this library (sqlite_api.h) */
const struct cl_sqlite_api *cl_sqlite;

static int load_sqlite(char *why, size_t n)
{
  char dir[PATH_MAX], path[PATH_MAX + 32];
  own_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%slibcudalens-sqlite.so", dir);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  const struct cl_sqlite_api *t = h ? dlsym(h, CL_SQLITE_TABLE) : NULL;
  if (!t || t->size != sizeof *t) {
    const char *e = h ? "not the SQLite of this cudalens" : dlerror();
    if (snprintf(why, n, "cannot load %s: %s", path, e ? e : "?") >= (int)n)
      snprintf(why, n, "cannot load libcudalens-sqlite.so beside it");
    return -1;
  }
  cl_sqlite = t;
  return 0;
}

/* CUDALENS_DEBUGLEVEL=1: what the collector cost, in one line */
static void cost_line(void)
{
  unsigned still = 0, unknown = 0;
  pthread_mutex_lock(&patch_lock);
  for (size_t i = 0; i < n_modules; i++) {
    still += modules[i].patched;
    unknown += !modules[i].known;
  }
  pthread_mutex_unlock(&patch_lock);
  fprintf(stderr,
          "cudalens: footprint: launches=%ld patched_launches=%ld"
          " instrumented=%ld modules_patched=%ld modules_unpatched=%ld"
          " modules_repatched=%ld modules_still_patched=%u modules_unknown=%u"
          " functions_missed=%ld"
          " lost=%ld samples_skipped=%ld settles=%ld stream_waits=%ld"
          " errors=%ld\n",
          atomic_load(&n_launches), atomic_load(&n_patched_launches),
          atomic_load(&n_instrumented), atomic_load(&n_mod_patched),
          atomic_load(&n_mod_unpatched), atomic_load(&n_mod_repatched), still,
          unknown, atomic_load(&n_missed), atomic_load(&n_lost), atomic_load(&n_skipped),
          atomic_load(&n_settles), atomic_load(&n_waits),
          atomic_load(&n_errors));
}

__attribute__((destructor)) static void collector_fini(void)
{
  /* a process that never loaded CUDA hears nothing of it */
  void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (cuda)
    dlclose(cuda);
  if (!active) {
    if (cuda && problem[0])
      fprintf(stderr, "cudalens: no footprints: %s\n", problem);
    return;
  }
  if (!atomic_load(&n_launches))
    return; /* no kernel launched: nothing to say */
  if (debug >= 1)
    cost_line();
  char why[512];
  if (load_sqlite(why, sizeof why) < 0 ||
      fp_write(output, sample, why, sizeof why) < 0) {
    fprintf(stderr, "cudalens: footprints not written to %s: %s\n", output,
            why);
    return;
  }
  long errors = atomic_load(&n_errors);
  if (errors)
    fprintf(stderr, "cudalens: footprints written to %s; %ld Sanitizer API"
            " calls failed (modules not patched or launches not read back)\n",
            output, errors);
}

/* the collector exports its presence, nothing else */
CL_EXPORT const int cudalens_footprint_version = 1;

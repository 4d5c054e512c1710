/* collector.c - libcudalens-footprint.so, the footprint collector of issue
 * 23: preloaded into a separate run of a program (cudalens run --footprint),
 * without libcudalens.so (CUPTI and NVIDIA's Compute Sanitizer API cannot
 * both be active in one process with CUDA 13.0: tests/gpu/footprint/
 * README.md).  It loads the Sanitizer API (libsanitizer-public.so),
 * patches every module as it loads (sanitizerPatchInstructions with
 * SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS and _MEMCPY_ASYNC: the device
 * functions of patches.cu append each access to a buffer), and instruments
 * a sample of the launches of each kernel function (fp_summary.h): at
 * LAUNCH_BEGIN it points the patches at a buffer
 * (sanitizerSetLaunchCallbackData), and reads the accesses back when the
 * program itself synchronizes the launch's stream or context (the
 * SYNCHRONIZE callbacks, as NVIDIA's MemoryTracker sample does; it waits
 * itself only when CUDALENS_FOOTPRINT_PENDING launches wait, or a stream,
 * module or context goes away, or at exit); fp_summary.c keeps them relative
 * to the launch's pointer arguments (their layout from
 * cuFuncGetParamInfo, their values from the launch API call's argument
 * array).  To keep the launches not sampled at their native speed, a module
 * runs patched code only while it has a launch due for the sample ("the
 * cost" below: sanitizerUnpatchModule, sanitizerPatchModule again).  At
 * exit it writes the footprint file (fp_write, through
 * libcudalens-sqlite.so beside it).  It changes no result of the program:
 * the patches only record, launches not sampled get no buffer, and launches
 * into a stream being captured are not instrumented (a capture may not be
 * synchronized: CUDA Programming Guide, CUDA Graphs, Prohibited and
 * Unhandled Operations).  Without the Sanitizer library it says so in one
 * line at exit (in a process that loaded CUDA) and does nothing else.
 *
 * Environment:
 *   CUDALENS_FOOTPRINT_OUTPUT   the footprint file (%p: the process id;
 *                               default cudalens-footprints.clfp)
 *   CUDALENS_FOOTPRINT_FIRST    launches of each kernel function instrumented
 *                               first (default 4)
 *   CUDALENS_FOOTPRINT_SPARSE   0: no more after those (default 1: then the
 *                               launches whose number is a power of two)
 *                               (each costs its module a re-patch; with 0
 *                               the modules stay unpatched once every
 *                               function launched has its first launches)
 *   CUDALENS_FOOTPRINT_UNPATCH  0: modules stay patched (every launch runs
 *                               the patched code; default 1)
 *   CUDALENS_FOOTPRINT_PENDING  instrumented launches left to wait for the
 *                               program's synchronization (default 16, at
 *                               most 128; each holds a buffer of CAPACITY
 *                               accesses, 16 bytes each); 0: wait for each
 *                               at its end
 *   CUDALENS_DEBUGLEVEL         1: one line at exit with the cost (launches,
 *                               those that ran patched code, instrumented,
 *                               read-backs, module patches and unpatches)
 *   CUDALENS_FOOTPRINT_CAPACITY accesses kept per launch (default 1048576)
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
  X(sanitizerUnpatchModule) X(sanitizerFree)
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
static unsigned debug; /* CUDALENS_DEBUGLEVEL: the cost line at exit */

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
/* an allocation stays listed after its free, with the event number DIED,
 * while instrumented launches made before the free wait to be read back
 * (their accesses are attributed as the memory was at the launch) */
struct live_alloc {
  struct fp_alloc a;
  uint64_t born, died; /* event numbers; DIED 0 while live */
};
static struct live_alloc *allocs;
static size_t n_allocs, cap_allocs;
static uint64_t alloc_events; /* allocations and frees so far */
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
    struct live_alloc *a = realloc(allocs, c * sizeof *a);
    if (a) {
      allocs = a;
      cap_allocs = c;
    }
  }
  if (n_allocs < cap_allocs)
    allocs[n_allocs++] =
        (struct live_alloc){{start, size, index}, ++alloc_events, 0};
  pthread_mutex_unlock(&alloc_lock);
}

static atomic_ulong n_waiting; /* instrumented launches not yet read back */

static void alloc_remove(uint64_t start, bool keep)
{
  pthread_mutex_lock(&alloc_lock);
  alloc_events++;
  for (size_t i = n_allocs; i-- > 0;) {
    if (allocs[i].died && !keep)
      allocs[i] = allocs[--n_allocs]; /* no launch waits for it any more */
    else if (allocs[i].a.start == start && !allocs[i].died) {
      if (keep)
        allocs[i].died = alloc_events;
      else
        allocs[i] = allocs[--n_allocs];
    }
  }
  pthread_mutex_unlock(&alloc_lock);
}

/* the event number now: a launch's accesses are attributed to the
 * allocations live at it */
static uint64_t alloc_now(void)
{
  pthread_mutex_lock(&alloc_lock);
  uint64_t n = alloc_events;
  pthread_mutex_unlock(&alloc_lock);
  return n;
}

static __thread uint64_t find_at; /* the launch being read back: alloc_now */

static int alloc_find(uint64_t addr, struct fp_alloc *a)
{
  int found = 0;
  pthread_mutex_lock(&alloc_lock);
  for (size_t i = 0; i < n_allocs && !found; i++)
    if (addr >= allocs[i].a.start && addr - allocs[i].a.start < allocs[i].a.size &&
        allocs[i].born <= find_at && (!allocs[i].died || allocs[i].died > find_at)) {
      *a = allocs[i].a;
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

/* ---- per thread: the launch API call in progress ----------------------------- */
static __thread struct {
  void **args;                 /* of the launch API call in progress */
  const struct layout *layout; /* their layout, from the driver's call */
  int depth;
} T;

/* ---- the cost: which modules run patched code ---------------------------------
 * Every launch of a patched module runs the patched code, a device call at
 * each global memory access, even with no buffer; so a module is patched
 * only while one of its launches is due for the sample.  It is patched when
 * it loads (the first launches of its functions are sampled), unpatched
 * (sanitizerUnpatchModule: "Remove any instrumentation of a CUDA module
 * performed by previous calls to sanitizerPatchModule", sanitizer_patching.h)
 * once its instrumented launches are read back and the launches that ran
 * its patched code are known to be complete (the program synchronized
 * their stream or context, or, at its next launch not sampled, the
 * collector waits for that stream: quiet_now), and patched again
 * (sanitizerPatchModule) at the LAUNCH_BEGIN of a launch due for the
 * sample, after the launches that ran its unpatched code are complete
 * (sanitizerStreamSynchronize; its own stream only: a sampled launch of a
 * module launched on several streams since is skipped, counted).  The
 * documentation does not say that patching is safe while launches of the
 * module run; hence the waits.
 * The API user serializes the patching calls (sanitizer_patching.h, "an API
 * user must serialize access to sanitizerPatchModule and
 * sanitizerUnpatchModule on the same module"): patch_lock.
 * The documentation does not say whether a module patched at LAUNCH_BEGIN
 * runs patched in that launch; a launch of a module patched at its
 * LAUNCH_BEGIN that recorded no access is taken as not seen (counted as
 * lost), and from then on modules stay patched (the cost of before, the
 * footprints whole).  CUDALENS_FOOTPRINT_UNPATCH=0 keeps them patched. */
struct module {
  CUmodule mod;
  CUcontext ctx;
  bool patched;
  bool multi;                  /* launched on several streams since the change */
  bool dirty;                  /* launched since it was patched or unpatched */
  Sanitizer_StreamHandle last; /* the stream of those launches */
  unsigned waiting;            /* its instrumented launches not read back */
};
static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct module *modules;
static size_t n_modules, cap_modules;
static CUcontext patched_ctx[64];
static unsigned n_patched_ctx;
static bool unpatch = true;  /* CUDALENS_FOOTPRINT_UNPATCH */
static atomic_bool late;     /* a re-patch came too late for its launch */
static atomic_long n_loaded, n_unpatched, n_repatched, n_patched_launches,
    n_instrumented, n_lost, n_forced, n_deferred, n_skipped, n_waits;

/* the module M (patch_lock held); NULL when out of memory */
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
  m->dirty = m->multi = false;
  return ok;
}

static void module_loaded(const Sanitizer_ResourceModuleData *d)
{
  pthread_mutex_lock(&patch_lock);
  struct module *m = module_of(d->module, d->context);
  if (m && patch(m))
    atomic_fetch_add(&n_loaded, 1);
  else if (!m)
    atomic_fetch_add(&n_errors, 1);
  pthread_mutex_unlock(&patch_lock);
}

static void module_unloaded(const Sanitizer_ResourceModuleData *d)
{
  pthread_mutex_lock(&patch_lock);
  for (size_t i = 0; i < n_modules; i++)
    if (modules[i].mod == d->module) {
      modules[i] = modules[--n_modules];
      break;
    }
  pthread_mutex_unlock(&patch_lock);
}

/* STREAM (NULL: every stream of CTX) was synchronized: the launches of the
 * modules launched on it alone since their last change are complete; those
 * with no instrumented launch waiting are unpatched */
static void unpatch_quiet(CUcontext ctx, Sanitizer_StreamHandle stream)
{
  bool go = unpatch && !atomic_load(&late);
  pthread_mutex_lock(&patch_lock);
  for (size_t i = 0; i < n_modules; i++) {
    struct module *m = &modules[i];
    if (m->ctx != ctx)
      continue;
    if (m->dirty && stream && (m->multi || m->last != stream))
      continue; /* launched on another stream: perhaps still running */
    m->dirty = m->multi = false;
    if (!go || !m->patched || m->waiting)
      continue;
    if (S.sanitizerUnpatchModule(m->mod) == SANITIZER_SUCCESS) {
      m->patched = false;
      atomic_fetch_add(&n_unpatched, 1);
    } else {
      atomic_fetch_add(&n_errors, 1);
    }
  }
  pthread_mutex_unlock(&patch_lock);
}

/* a re-patch came too late for its launch: every module patched, for good */
static void patch_all(void)
{
  pthread_mutex_lock(&patch_lock);
  for (size_t i = 0; i < n_modules; i++)
    if (!modules[i].patched && patch(&modules[i]))
      atomic_fetch_add(&n_repatched, 1);
  pthread_mutex_unlock(&patch_lock);
}

/* ---- instrumented launches, read back at the program's synchronizations ---- */
#define MAX_WAITING 256
struct waiting {
  CUcontext ctx;
  Sanitizer_StreamHandle stream;
  CUmodule mod;
  struct fp_buffer *dev;
  bool repatched; /* its module was patched at its LAUNCH_BEGIN */
  uint64_t at;    /* alloc_now() at the launch */
  unsigned n_words;
  struct fp_word words[MAX_WORDS];
  char name[1024];
};
static pthread_mutex_t pend_lock = PTHREAD_MUTEX_INITIALIZER;
static struct waiting *waiting[MAX_WAITING];
static unsigned n_wait, max_waiting = 16; /* CUDALENS_FOOTPRINT_PENDING */
/* buffers not in use, per context */
static struct { CUcontext ctx; struct fp_buffer *dev; } spare[MAX_WAITING + 1];
static unsigned n_spare;
/* give DEV back (pend_lock held); kept for the next instrumented launch, or
 * left allocated when too many are spare */
static void spare_put(CUcontext ctx, struct fp_buffer *dev)
{
  if (n_spare < sizeof spare / sizeof *spare)
    spare_put(ctx, dev);
}
static __thread struct fp_access *host;
static __thread size_t host_cap;

/* a buffer for CTX (pend_lock held), its count zeroed on STREAM */
static struct fp_buffer *buffer_get(CUcontext ctx, Sanitizer_StreamHandle stream)
{
  struct fp_buffer *dev = NULL;
  for (unsigned i = 0; i < n_spare && !dev; i++)
    if (spare[i].ctx == ctx) {
      dev = spare[i].dev;
      spare[i] = spare[--n_spare];
    }
  if (!dev) {
    void *acc = NULL;
    if (S.sanitizerAlloc(ctx, (void **)&dev, sizeof *dev) != SANITIZER_SUCCESS)
      dev = NULL;
    else if (S.sanitizerAlloc(ctx, &acc, (size_t)capacity *
                                             sizeof(struct fp_access)) !=
             SANITIZER_SUCCESS) {
      S.sanitizerFree(ctx, dev);
      dev = NULL;
    }
    struct fp_buffer h = {0, capacity, (struct fp_access *)acc};
    if (dev && S.sanitizerMemcpyHostToDeviceAsync(dev, &h, sizeof h, stream) !=
                   SANITIZER_SUCCESS) {
      S.sanitizerFree(ctx, acc);
      S.sanitizerFree(ctx, dev);
      dev = NULL;
    }
    if (!dev) {
      atomic_fetch_add(&n_errors, 1);
      return NULL;
    }
  }
  if (S.sanitizerMemset(dev, 0, sizeof dev->count, stream) != SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_errors, 1);
    spare_put(ctx, dev);
    return NULL;
  }
  return dev;
}

/* read W back (first waiting for its stream when SYNC; OURS: the wait is
 * the collector's, not the program's), give its buffer back, free W */
static void read_back(struct waiting *w, bool sync, bool ours)
{
  struct fp_buffer h = {0, 0, NULL};
  bool ok = (!sync || S.sanitizerStreamSynchronize(w->stream) ==
                          SANITIZER_SUCCESS) &&
            S.sanitizerMemcpyDeviceToHost(&h, w->dev, sizeof h, w->stream) ==
                SANITIZER_SUCCESS;
  uint32_t kept = h.count < h.capacity ? h.count : h.capacity;
  if (ok && kept > host_cap) {
    struct fp_access *p = realloc(host, kept * sizeof *p);
    if (p) {
      host = p;
      host_cap = kept;
    } else {
      ok = false;
    }
  }
  ok = ok && (!kept || S.sanitizerMemcpyDeviceToHost(host, h.accesses,
                                                     kept * sizeof *host,
                                                     w->stream) ==
                           SANITIZER_SUCCESS);
  if (!ok) {
    atomic_fetch_add(&n_errors, 1);
  } else if (!h.count && w->repatched) {
    /* patched at its LAUNCH_BEGIN and nothing seen: perhaps it ran the
     * unpatched code; not a footprint, and modules stay patched */
    atomic_fetch_add(&n_lost, 1);
    if (!atomic_exchange(&late, true))
      patch_all();
  } else {
    find_at = w->at;
    fp_instrumented(w->name, w->words, w->n_words, host, kept,
                    h.count - kept, alloc_find);
    atomic_fetch_add(&n_instrumented, 1);
  }
  atomic_fetch_add(sync || ours ? &n_forced : &n_deferred, 1);
  pthread_mutex_lock(&pend_lock);
  spare_put(w->ctx, w->dev);
  pthread_mutex_unlock(&pend_lock);
  pthread_mutex_lock(&patch_lock);
  struct module *m = module_of(w->mod, w->ctx);
  if (m && m->waiting)
    m->waiting--;
  pthread_mutex_unlock(&patch_lock);
  atomic_fetch_sub(&n_waiting, 1);
  free(w);
}

/* read back the launches waiting on STREAM (NULL: all of CTX; CTX NULL:
 * all); SYNC: wait for them first (else their streams are synchronized, by
 * the collector when OURS) */
static void read_back_all(CUcontext ctx, Sanitizer_StreamHandle stream,
                          bool sync, bool ours)
{
  struct waiting *mine[MAX_WAITING];
  unsigned n = 0;
  pthread_mutex_lock(&pend_lock);
  for (unsigned i = 0; i < n_wait;) {
    struct waiting *w = waiting[i];
    if ((!ctx || w->ctx == ctx) && (!stream || w->stream == stream)) {
      mine[n++] = w;
      memmove(&waiting[i], &waiting[i + 1], (n_wait - i - 1) * sizeof *waiting);
      n_wait--;
    } else {
      i++;
    }
  }
  pthread_mutex_unlock(&pend_lock);
  for (unsigned i = 0; i < n; i++)
    read_back(mine[i], sync, ours);
}

static void read_args(CUfunction func, struct waiting *w)
{
  w->n_words = 0;
  if (!T.args)
    return;
  const struct layout *l = T.layout ? T.layout : layout_of(func);
  if (!l)
    return;
  for (unsigned p = 0; p < l->n && w->n_words < MAX_WORDS; p++)
    for (unsigned k = 0; k < l->size[p] / 8u && w->n_words < MAX_WORDS; k++) {
      struct fp_word *x = &w->words[w->n_words++];
      memcpy(&x->value, (const char *)T.args[p] + 8 * k, 8);
      x->param = (uint16_t)p;
      x->offset = (uint16_t)(8 * k);
    }
}

/* ---- Sanitizer callbacks ----------------------------------------------------- */
static bool capturing(CUstream s)
{
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!is_capturing)
    is_capturing = (is_capturing_fn)driver_symbol("cuStreamIsCapturing");
  return is_capturing && is_capturing(s, &st) == CUDA_SUCCESS &&
         st != CU_STREAM_CAPTURE_STATUS_NONE;
}

static __thread struct waiting *open_launch; /* between BEGIN and END */

/* a launch not due for the sample, L, of a module that still runs patched
 * code: the program rarely synchronizes (a training loop may not, between
 * two steps), so the collector waits here for the module's launches on L's
 * stream, reads them back and unpatches it, and L runs unpatched.  Not for
 * a module launched on several streams (a context synchronization
 * unpatches it), nor on a stream being captured (not to be synchronized) */
static void quiet_now(const Sanitizer_LaunchData *l)
{
  pthread_mutex_lock(&patch_lock);
  struct module *m = module_of(l->module, l->context);
  bool patched = m && m->patched, go = patched && !m->multi &&
                                       (!m->dirty || m->last == l->hStream);
  bool wait = go && m->dirty;
  if (go && !wait) { /* none of its launches ran patched code: at once */
    if (S.sanitizerUnpatchModule(m->mod) == SANITIZER_SUCCESS) {
      m->patched = false;
      atomic_fetch_add(&n_unpatched, 1);
    } else {
      atomic_fetch_add(&n_errors, 1);
    }
  }
  pthread_mutex_unlock(&patch_lock);
  if (!wait || capturing(l->stream))
    return;
  if (S.sanitizerStreamSynchronize(l->hStream) != SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_errors, 1);
    return;
  }
  atomic_fetch_add(&n_waits, 1);
  read_back_all(l->context, l->hStream, false, true);
  unpatch_quiet(l->context, l->hStream);
}

static void launch_begin(const Sanitizer_LaunchData *l)
{
  open_launch = NULL;
  const char *name = l->functionName ? l->functionName : "";
  uint64_t n = fp_launch(name);
  atomic_fetch_add(&n_launches, 1);
  bool due = fp_sampled(n, first, sparse) && !capturing(l->stream);
  if (!due && unpatch && !atomic_load(&late))
    quiet_now(l);
  /* the module: patched again if this launch is due, after its unpatched
   * launches are complete */
  bool repatched = false, patched, wait = false;
  pthread_mutex_lock(&patch_lock);
  struct module *m = module_of(l->module, l->context);
  if (m && due && !m->patched) {
    if (m->dirty && (m->multi || m->last != l->hStream)) {
      due = false; /* its unpatched launches may run on another stream */
      atomic_fetch_add(&n_skipped, 1);
    } else {
      wait = m->dirty;
    }
  }
  pthread_mutex_unlock(&patch_lock);
  /* (not holding the lock: a synchronization may call back) */
  if (wait && S.sanitizerStreamSynchronize(l->hStream) != SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_errors, 1);
    due = false;
  } else if (wait) {
    atomic_fetch_add(&n_waits, 1);
  }
  pthread_mutex_lock(&patch_lock);
  m = module_of(l->module, l->context);
  if (m && due && !m->patched) {
    if (patch(m))
      repatched = true, atomic_fetch_add(&n_repatched, 1);
    else
      due = false;
  }
  patched = m ? m->patched : true;
  if (m) {
    if (m->dirty && m->last != l->hStream)
      m->multi = true;
    m->last = l->hStream;
    m->dirty = true;
  }
  pthread_mutex_unlock(&patch_lock);
  if (patched)
    atomic_fetch_add(&n_patched_launches, 1);
  /* launches not sampled run with no buffer: the patches return at once */
  struct waiting *w = due && patched ? malloc(sizeof *w) : NULL;
  struct fp_buffer *dev = NULL;
  if (w) {
    if (max_waiting && atomic_load(&n_waiting) >= max_waiting)
      read_back_all(NULL, NULL, true, true); /* too many waiting */
    pthread_mutex_lock(&pend_lock);
    dev = buffer_get(l->context, l->hStream);
    pthread_mutex_unlock(&pend_lock);
  }
  if (S.sanitizerSetLaunchCallbackData(l->hLaunch, l->function, l->hStream,
                                       dev) != SANITIZER_SUCCESS ||
      !dev) {
    if (dev) {
      pthread_mutex_lock(&pend_lock);
      spare_put(l->context, dev);
      pthread_mutex_unlock(&pend_lock);
    }
    free(w);
    return;
  }
  *w = (struct waiting){.ctx = l->context, .stream = l->hStream,
                        .mod = l->module, .dev = dev, .repatched = repatched,
                        .at = alloc_now()};
  snprintf(w->name, sizeof w->name, "%s", name);
  read_args(l->function, w);
  pthread_mutex_lock(&patch_lock);
  if ((m = module_of(l->module, l->context)))
    m->waiting++;
  pthread_mutex_unlock(&patch_lock);
  atomic_fetch_add(&n_waiting, 1);
  open_launch = w;
}

static void launch_end(const Sanitizer_LaunchData *l)
{
  (void)l;
  struct waiting *w = open_launch;
  if (!w)
    return;
  open_launch = NULL;
  if (!max_waiting) { /* CUDALENS_FOOTPRINT_PENDING=0: read back now */
    CUcontext ctx = w->ctx;
    Sanitizer_StreamHandle stream = w->stream;
    read_back(w, true, true);
    unpatch_quiet(ctx, stream); /* the stream is synchronized */
    return;
  }
  pthread_mutex_lock(&pend_lock);
  bool room = n_wait < MAX_WAITING; /* max_waiting leaves room but for races */
  if (room)
    waiting[n_wait++] = w;
  pthread_mutex_unlock(&pend_lock);
  if (!room)
    read_back(w, true, true);
}

/* the program synchronized STREAM (NULL: the context): its launches are
 * complete, read them back without waiting (as NVIDIA's MemoryTracker
 * sample does), then unpatch what is no longer due */
static void synchronized(const Sanitizer_SynchronizeData *d, bool whole)
{
  read_back_all(d->context, whole ? NULL : d->hStream, false, false);
  unpatch_quiet(d->context, whole ? NULL : d->hStream);
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
      /* its launches read back while it exists */
      const Sanitizer_ResourceModuleData *m = cbdata;
      read_back_all(m->context, NULL, true, true);
      module_unloaded(m);
    } else if (cbid == SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING) {
      const Sanitizer_ResourceStreamData *st = cbdata;
      read_back_all(st->context, st->hStream, true, true);
    } else if (cbid == SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      const Sanitizer_ResourceContextData *c = cbdata;
      read_back_all(c->context, NULL, true, true);
    } else if (cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC ||
               cbid == SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC) {
      const Sanitizer_ResourceMemoryData *m = cbdata;
      alloc_add(m->address, m->size, m->flags);
    } else if (cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE ||
               cbid == SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC) {
      const Sanitizer_ResourceMemoryData *m = cbdata;
      alloc_remove(m->address, atomic_load(&n_waiting) > 0);
    }
    break;
  case SANITIZER_CB_DOMAIN_LAUNCH:
    if (cbid == SANITIZER_CBID_LAUNCH_BEGIN)
      launch_begin(cbdata);
    else if (cbid == SANITIZER_CBID_LAUNCH_END)
      launch_end(cbdata);
    break;
  case SANITIZER_CB_DOMAIN_SYNCHRONIZE:
    if (cbid == SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED)
      synchronized(cbdata, false);
    else if (cbid == SANITIZER_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED)
      synchronized(cbdata, true);
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
  S.sanitizerEnableDomain(1, h, SANITIZER_CB_DOMAIN_SYNCHRONIZE);
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
  atomic_store(&n_instrumented, 0);
  atomic_store(&n_patched_launches, 0);
  /* nor waits for the parent's launches (the locks re-initialized, not
   * taken: another thread of the parent may have held them) */
  pthread_mutex_init(&pend_lock, NULL);
  pthread_mutex_init(&patch_lock, NULL);
  n_wait = n_spare = 0;
  n_modules = 0;
  atomic_store(&n_waiting, 0);
}

__attribute__((constructor)) static void collector_init(void)
{
  pthread_atfork(NULL, NULL, after_fork_child);
  first = env_uint("CUDALENS_FOOTPRINT_FIRST", 4);
  sparse = env_uint("CUDALENS_FOOTPRINT_SPARSE", 1) != 0;
  unpatch = env_uint("CUDALENS_FOOTPRINT_UNPATCH", 1) != 0;
  max_waiting = env_uint("CUDALENS_FOOTPRINT_PENDING", 16);
  if (max_waiting > MAX_WAITING / 2)
    max_waiting = MAX_WAITING / 2;
  debug = env_uint("CUDALENS_DEBUGLEVEL", 0);
  capacity = env_uint("CUDALENS_FOOTPRINT_CAPACITY", 1u << 20);
  if (!capacity)
    capacity = 1;
  snprintf(sample, sizeof sample, "%u,%d", first, sparse);
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
  read_back_all(NULL, NULL, true, true); /* never waited for */
  if (debug)
    fprintf(stderr,
            "cudalens: footprint cost: %ld launches, %ld ran patched code,"
            " %ld instrumented, %ld lost (%ld read back at the program's"
            " synchronizations, %ld by the collector), %ld skipped; modules:"
            " %ld patched at load, %ld unpatched, %ld patched again; %ld"
            " stream waits for patching%s\n",
            atomic_load(&n_launches), atomic_load(&n_patched_launches),
            atomic_load(&n_instrumented), atomic_load(&n_lost),
            atomic_load(&n_deferred), atomic_load(&n_forced),
            atomic_load(&n_skipped), atomic_load(&n_loaded),
            atomic_load(&n_unpatched), atomic_load(&n_repatched),
            atomic_load(&n_waits),
            atomic_load(&late) ? " (then kept patched: a re-patch came late)"
                               : "");
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

/* probe.c - libclfootprint_probe.so: the first step of issue 23.  Preloaded
 * into a CUDA program, it instruments every kernel launch through NVIDIA's
 * Compute Sanitizer API (patching API: a device callback at each global
 * memory access, patches.cu), reads each launch's accesses back when the
 * launch has been enqueued (a copy on the launch's stream, so it waits for
 * the kernel), merges them into ranges read (R), written (W) and updated
 * atomically (A), and prints them per launch relative to the kernel's
 * pointer arguments (found through cuFuncGetParamInfo) or, for memory no
 * argument points into, relative to the allocation.  At exit it prints one
 * verdict line: what sanitizerSubscribe and cuptiSubscribe returned, whether
 * accesses were reported and whether CUPTI callbacks fired.
 *
 * Environment (a test probe, not part of the shim: CL_FP_ names):
 *   CL_FP_MODE     a: the Sanitizer API alone (default);
 *                  b: subscribe to CUPTI first (runtime and driver API
 *                     domains, as a profiler does), then to the Sanitizer;
 *                  c: the Sanitizer first, then CUPTI;
 *                  d: as a, with libcudalens.so preloaded too (its CUPTI
 *                     subscriber is the shim's; probe.sh checks its records)
 *   CL_FP_OUT      the file the launches and the verdict are appended to
 *                  (default: standard error)
 *   CL_FP_PATCHES  the patch fatbin (default: footprint_patches.fatbin next
 *                  to this library)
 *   CL_FP_CAPACITY accesses kept per launch (default 1048576, 16 bytes each)
 *   CL_FP_PARAMS   0: do not look up kernel parameters (absolute ranges)
 *   CL_FP_PRINT    0: merge the ranges but print only the verdict (timing)
 *   CL_FP_CUPTI    the CUPTI library for modes b and c (default: searched)
 * The probe synchronizes on every instrumented launch: what it costs is an
 * upper bound for a collector that reads back later or samples launches. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <sanitizer.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "fp_buffer.h"
#include "probe.h"

#define EXPORT __attribute__((visibility("default")))

/* ---- settings and counters ------------------------------------------------ */
static char mode = 'a';
static FILE *out;
static char patches_path[4096];
static uint32_t capacity = 1u << 20;
static int want_params = 1, want_print = 1;

static SanitizerResult san_sub_rc = SANITIZER_ERROR_NOT_INITIALIZED;
static int san_subscribed;
static int cupti_sub_rc = -1; /* a CUptiResult; -1: no CUPTI library */
static int cupti_tried;
static char cupti_note[256] = "";

static atomic_long n_launch_begin, n_launch_end, n_instrumented, n_accesses,
    n_dropped, n_modules, n_patch_errors, n_san_api, n_ranges, n_attributed,
    n_readback_errors;
static char first_error[512] = "";
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_error(const char *fmt, SanitizerResult r, const char *what)
{
  const char *s = NULL;
  sanitizerGetResultString(r, &s);
  pthread_mutex_lock(&print_lock);
  if (!first_error[0])
    snprintf(first_error, sizeof first_error, fmt, what, (int)r,
             s ? s : "?");
  pthread_mutex_unlock(&print_lock);
}

/* ---- live allocations (resource callbacks) ---------------------------------- */
struct alloc {
  uint64_t start, size;
  uint32_t flags;
};
static struct alloc *allocs;
static size_t n_allocs, cap_allocs;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;

static void alloc_add(uint64_t start, uint64_t size, uint32_t flags)
{
  pthread_mutex_lock(&alloc_lock);
  if (n_allocs == cap_allocs) {
    size_t c = cap_allocs ? 2 * cap_allocs : 256;
    struct alloc *a = realloc(allocs, c * sizeof *a);
    if (!a) {
      pthread_mutex_unlock(&alloc_lock);
      return;
    }
    allocs = a;
    cap_allocs = c;
  }
  allocs[n_allocs++] = (struct alloc){start, size, flags};
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

/* the allocation holding ADDR: 1 and *A, or 0 */
static int alloc_find(uint64_t addr, struct alloc *a)
{
  int found = 0;
  pthread_mutex_lock(&alloc_lock);
  for (size_t i = 0; i < n_allocs; i++)
    if (addr >= allocs[i].start && addr - allocs[i].start < allocs[i].size) {
      *a = allocs[i];
      found = 1;
      break;
    }
  pthread_mutex_unlock(&alloc_lock);
  return found;
}

/* ---- kernel parameters ------------------------------------------------------ */
#define MAX_PARAMS 64
#define MAX_WORDS 128
typedef CUresult (*param_info_fn)(void *, size_t, size_t *, size_t *);

struct layout {
  void *func;
  unsigned n;
  uint16_t offset[MAX_PARAMS], size[MAX_PARAMS];
  struct layout *next;
};
static struct layout *layouts;
static pthread_mutex_t layout_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct layout *layout_of(CUfunction func)
{
  static param_info_fn func_info, kernel_info;
  static int looked;
  pthread_mutex_lock(&layout_lock);
  for (struct layout *l = layouts; l; l = l->next)
    if (l->func == (void *)func) {
      pthread_mutex_unlock(&layout_lock);
      return l;
    }
  if (!looked) {
    /* the driver the program loaded (the runtime opens it locally) */
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
      h = RTLD_DEFAULT;
    func_info = (param_info_fn)dlsym(h, "cuFuncGetParamInfo");
    kernel_info = (param_info_fn)dlsym(h, "cuKernelGetParamInfo");
    looked = 1;
  }
  struct layout *l = calloc(1, sizeof *l);
  if (l) {
    l->func = (void *)func;
    size_t off, size;
    param_info_fn info = func_info;
    if (info && info(func, 0, &off, &size) != CUDA_SUCCESS)
      info = kernel_info;
    while (info && l->n < MAX_PARAMS &&
           info(func, l->n, &off, &size) == CUDA_SUCCESS) {
      l->offset[l->n] = (uint16_t)off;
      l->size[l->n] = (uint16_t)(size > 0xffff ? 0xffff : size);
      l->n++;
    }
    l->next = layouts;
    layouts = l;
  }
  pthread_mutex_unlock(&layout_lock);
  return l;
}

/* the pointer-sized words of the launch's arguments */
struct word {
  uint64_t value;
  uint16_t param, index; /* argument number; word within it */
  uint16_t of;           /* words in the argument */
};

/* ---- per thread: the launch in flight ------------------------------------------ */
struct tbuf {
  CUcontext ctx;
  struct fp_buffer *dev; /* device memory: header */
};
#define THREAD_CTXS 8
static __thread struct {
  void **args; /* kernel arguments of the launch API call in progress */
  const struct layout *layout; /* their layout, when the driver's call */
  int depth;   /* launch API calls open on this thread */
  struct tbuf bufs[THREAD_CTXS];
  /* the instrumented launch between LAUNCH_BEGIN and LAUNCH_END */
  int active;
  long seq;
  struct fp_buffer *dev;
  char name[256];
  unsigned grid[3], block[3];
  struct word words[MAX_WORDS];
  unsigned n_words;
  int params_known;
  struct fp_access *host;
  size_t host_cap;
} T;

static struct fp_buffer *thread_buffer(CUcontext ctx,
                                       Sanitizer_StreamHandle stream)
{
  unsigned i;
  for (i = 0; i < THREAD_CTXS && T.bufs[i].ctx; i++)
    if (T.bufs[i].ctx == ctx)
      return T.bufs[i].dev;
  if (i == THREAD_CTXS)
    return NULL;
  struct fp_buffer *dev = NULL;
  void *acc = NULL;
  SanitizerResult r = sanitizerAlloc(ctx, (void **)&dev, sizeof *dev);
  if (r == SANITIZER_SUCCESS)
    r = sanitizerAlloc(ctx, &acc, (size_t)capacity * sizeof(struct fp_access));
  if (r != SANITIZER_SUCCESS) {
    note_error("%s: %d (%s)", r, "sanitizerAlloc");
    return NULL;
  }
  T.bufs[i].ctx = ctx;
  T.bufs[i].dev = dev;
  /* the header's accesses pointer is set once; each launch resets count */
  struct fp_buffer h = {0, capacity, (struct fp_access *)acc, NULL};
  r = sanitizerMemcpyHostToDeviceAsync(dev, &h, sizeof h, stream);
  if (r != SANITIZER_SUCCESS)
    note_error("%s: %d (%s)", r, "sanitizerMemcpyHostToDeviceAsync");
  return dev;
}

static void read_args(CUfunction func)
{
  T.n_words = 0;
  T.params_known = 0;
  if (!want_params || !T.args)
    return;
  /* from the driver's launch call; else (a runtime call alone) here */
  const struct layout *l = T.layout ? T.layout : layout_of(func);
  if (!l || !l->n)
    return;
  T.params_known = 1;
  for (unsigned p = 0; p < l->n && T.n_words < MAX_WORDS; p++) {
    unsigned nw = l->size[p] / 8;
    for (unsigned w = 0; w < nw && T.n_words < MAX_WORDS; w++) {
      struct word *x = &T.words[T.n_words++];
      memcpy(&x->value, (const char *)T.args[p] + 8 * w, 8);
      x->param = (uint16_t)p;
      x->index = (uint16_t)w;
      x->of = (uint16_t)nw;
    }
  }
}

/* ---- merging and printing ---------------------------------------------------- */
static int kind_of(uint32_t flags)
{
  int r = !!(flags & SANITIZER_MEMORY_DEVICE_FLAG_READ);
  int w = !!(flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE);
  return r && w ? 'A' : w ? 'W' : 'R';
}

static int by_kind_address(const void *x, const void *y)
{
  const struct fp_access *a = x, *b = y;
  int ka = kind_of(a->flags), kb = kind_of(b->flags);
  if (ka != kb)
    return ka < kb ? -1 : 1;
  return a->address < b->address ? -1 : a->address > b->address;
}

static void print_range(int kind, uint64_t s, uint64_t e)
{
  atomic_fetch_add(&n_ranges, 1);
  /* the argument word pointing at or below S inside S's allocation */
  struct alloc a;
  int in_alloc = alloc_find(s, &a);
  const struct word *best = NULL;
  for (unsigned i = 0; in_alloc && i < T.n_words; i++) {
    const struct word *w = &T.words[i];
    if (w->value < a.start || w->value - a.start >= a.size)
      continue;
    if (!best ||
        (w->value <= s && (best->value > s || w->value > best->value)) ||
        (w->value > s && best->value > s && w->value < best->value))
      best = w;
  }
  if (!want_print) {
    if (best)
      atomic_fetch_add(&n_attributed, 1);
    return;
  }
  if (best) {
    atomic_fetch_add(&n_attributed, 1);
    char name[32];
    if (best->of > 1)
      snprintf(name, sizeof name, "arg%u.w%u", best->param, best->index);
    else
      snprintf(name, sizeof name, "arg%u", best->param);
    fprintf(out, "  %c %s+[%" PRId64 ",%" PRId64 ")\n", kind, name,
            (int64_t)(s - best->value), (int64_t)(e - best->value));
  } else if (in_alloc) {
    fprintf(out, "  %c alloc@0x%" PRIx64 "(%" PRIu64 " bytes%s)+[%" PRIu64
                 ",%" PRIu64 ") no-argument\n",
            kind, a.start, a.size,
            a.flags & SANITIZER_MEMORY_FLAG_MODULE ? ", module global" : "",
            s - a.start, e - a.start);
  } else {
    fprintf(out, "  %c abs[0x%" PRIx64 ",0x%" PRIx64 ") no-allocation\n",
            kind, s, e);
  }
}

static void report_launch(uint32_t count, uint32_t kept)
{
  struct fp_access *v = T.host;
  qsort(v, kept, sizeof *v, by_kind_address);
  if (want_print) {
    pthread_mutex_lock(&print_lock);
    fprintf(out, "launch %ld %s grid=%ux%ux%u block=%ux%ux%u accesses=%u "
                 "dropped=%u params=%s\n",
            T.seq, T.name, T.grid[0], T.grid[1], T.grid[2], T.block[0],
            T.block[1], T.block[2], count, count - kept,
            T.params_known ? "known" : "unknown");
  }
  size_t i = 0;
  while (i < kept) {
    int k = kind_of(v[i].flags);
    uint64_t s = v[i].address, e = s + v[i].size;
    size_t j = i + 1;
    for (; j < kept && kind_of(v[j].flags) == k && v[j].address <= e; j++)
      if (v[j].address + v[j].size > e)
        e = v[j].address + v[j].size;
    print_range(k, s, e);
    i = j;
  }
  if (want_print) {
    fflush(out);
    pthread_mutex_unlock(&print_lock);
  }
}

/* ---- Sanitizer callbacks ------------------------------------------------------ */
static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext patched_ctx[64];
static unsigned n_patched_ctx;

static void module_loaded(const Sanitizer_ResourceModuleData *m)
{
  SanitizerResult r;
  /* the API user serializes the patching calls (sanitizer_patching.h) */
  pthread_mutex_lock(&patch_lock);
  unsigned i;
  for (i = 0; i < n_patched_ctx && patched_ctx[i] != m->context; i++)
    ;
  if (i == n_patched_ctx) {
    r = sanitizerAddPatchesFromFile(patches_path, m->context);
    if (r != SANITIZER_SUCCESS) {
      atomic_fetch_add(&n_patch_errors, 1);
      note_error("%s: %d (%s)", r, "sanitizerAddPatchesFromFile");
      pthread_mutex_unlock(&patch_lock);
      return;
    }
    if (n_patched_ctx < 64)
      patched_ctx[n_patched_ctx++] = m->context;
  }
  r = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS,
                                 m->module, "fp_global_access");
  if (r != SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_patch_errors, 1);
    note_error("%s: %d (%s)", r, "sanitizerPatchInstructions(global)");
  }
  r = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_MEMCPY_ASYNC, m->module,
                                 "fp_memcpy_async");
  if (r != SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_patch_errors, 1);
    note_error("%s: %d (%s)", r, "sanitizerPatchInstructions(memcpy_async)");
  }
  r = sanitizerPatchModule(m->module);
  if (r != SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_patch_errors, 1);
    note_error("%s: %d (%s)", r, "sanitizerPatchModule");
  } else {
    atomic_fetch_add(&n_modules, 1);
  }
  pthread_mutex_unlock(&patch_lock);
}

static void launch_begin(const Sanitizer_LaunchData *l)
{
  long seq = atomic_fetch_add(&n_launch_begin, 1) + 1;
  T.active = 0;
  struct fp_buffer *dev = thread_buffer(l->context, l->hStream);
  if (!dev)
    return;
  SanitizerResult r = sanitizerMemset(dev, 0, sizeof dev->count, l->hStream);
  if (r == SANITIZER_SUCCESS)
    r = sanitizerSetLaunchCallbackData(l->hLaunch, l->function, l->hStream,
                                       dev);
  if (r != SANITIZER_SUCCESS) {
    note_error("%s: %d (%s)", r, "launch setup");
    return;
  }
  T.active = 1;
  T.seq = seq;
  T.dev = dev;
  snprintf(T.name, sizeof T.name, "%s",
           l->functionName ? l->functionName : "?");
  T.grid[0] = l->gridDim_x, T.grid[1] = l->gridDim_y, T.grid[2] = l->gridDim_z;
  T.block[0] = l->blockDim_x, T.block[1] = l->blockDim_y,
  T.block[2] = l->blockDim_z;
  read_args(l->function);
  atomic_fetch_add(&n_instrumented, 1);
}

static void launch_end(const Sanitizer_LaunchData *l)
{
  atomic_fetch_add(&n_launch_end, 1);
  if (!T.active)
    return;
  T.active = 0;
  struct fp_buffer h;
  /* wait for the kernel (as HPCToolkit's Sanitizer support does at
   * LAUNCH_END), then copy on the launch's stream */
  SanitizerResult r = sanitizerStreamSynchronize(l->hStream);
  if (r == SANITIZER_SUCCESS)
    r = sanitizerMemcpyDeviceToHost(&h, T.dev, sizeof h, l->hStream);
  if (r != SANITIZER_SUCCESS) {
    atomic_fetch_add(&n_readback_errors, 1);
    note_error("%s: %d (%s)", r, "sanitizerMemcpyDeviceToHost");
    return;
  }
  uint32_t kept = h.count < h.capacity ? h.count : h.capacity;
  atomic_fetch_add(&n_accesses, h.count);
  atomic_fetch_add(&n_dropped, h.count - kept);
  if (kept > T.host_cap) {
    struct fp_access *p = realloc(T.host, kept * sizeof *p);
    if (!p)
      return;
    T.host = p;
    T.host_cap = kept;
  }
  if (kept) {
    r = sanitizerMemcpyDeviceToHost(T.host, h.accesses, kept * sizeof *T.host,
                                    l->hStream);
    if (r != SANITIZER_SUCCESS) {
      atomic_fetch_add(&n_readback_errors, 1);
      note_error("%s: %d (%s)", r, "sanitizerMemcpyDeviceToHost");
      return;
    }
  }
  report_launch(h.count, kept);
}

/* the parameter structures of the launch calls, as far as the arguments
 * (generated_cuda_meta.h, generated_cuda_runtime_api_meta.h; not included:
 * the toolkit's copies and the Sanitizer's clash when both are seen) */
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

/* the kernel arguments of the launch API call in progress.  The runtime's
 * launch calls the driver's (the shim reads the arguments there too:
 * shim/capture.c), whose parameter structures the headers give; the layout
 * is looked up there, in the API callback, as the shim does in CUPTI's.
 * CUDA 13's <<<>>> entry, __cudaLaunchKernel, has no parameter structure in
 * the headers: only its nested driver call is read. */
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
  atomic_fetch_add(&n_san_api, 1);
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

static void sanitizer_start(void)
{
  Sanitizer_SubscriberHandle h;
  san_sub_rc = sanitizerSubscribe(&h, on_sanitizer, NULL);
  if (san_sub_rc != SANITIZER_SUCCESS)
    return;
  san_subscribed = 1;
  sanitizerEnableDomain(1, h, SANITIZER_CB_DOMAIN_RESOURCE);
  sanitizerEnableDomain(1, h, SANITIZER_CB_DOMAIN_LAUNCH);
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
  if (want_params) {
    for (size_t i = 0; i < sizeof drv / sizeof *drv; i++)
      sanitizerEnableCallback(1, h, SANITIZER_CB_DOMAIN_DRIVER_API, drv[i]);
    for (size_t i = 0; i < sizeof rt / sizeof *rt; i++)
      sanitizerEnableCallback(1, h, SANITIZER_CB_DOMAIN_RUNTIME_API, rt[i]);
  }
}

int fp_in_instrumented_launch(void)
{
  return T.active;
}

/* ---- load and exit ---------------------------------------------------------- */
static int header_printed;

__attribute__((constructor)) static void probe_init(void)
{
  const char *m = getenv("CL_FP_MODE");
  if (m && strchr("abcd", m[0]) && m[0])
    mode = m[0];
  const char *o = getenv("CL_FP_OUT");
  out = o && *o ? fopen(o, "a") : NULL;
  if (!out)
    out = stderr;
  const char *p = getenv("CL_FP_PATCHES");
  if (p && *p) {
    snprintf(patches_path, sizeof patches_path, "%s", p);
  } else {
    Dl_info di;
    if (dladdr((void *)probe_init, &di) && di.dli_fname) {
      snprintf(patches_path, sizeof patches_path, "%s", di.dli_fname);
      char *slash = strrchr(patches_path, '/');
      size_t at = slash ? (size_t)(slash + 1 - patches_path) : 0;
      snprintf(patches_path + at, sizeof patches_path - at,
               "footprint_patches.fatbin");
    }
  }
  const char *c = getenv("CL_FP_CAPACITY");
  if (c && atol(c) > 0)
    capacity = (uint32_t)atol(c);
  const char *pa = getenv("CL_FP_PARAMS");
  want_params = !(pa && pa[0] == '0');
  const char *pr = getenv("CL_FP_PRINT");
  want_print = !(pr && pr[0] == '0');
  fprintf(out, "# probe mode=%c pid=%d patches=%s capacity=%u\n", mode,
          (int)getpid(), patches_path, capacity);
  fflush(out);
  header_printed = 1;
  if (mode == 'b')
    cupti_sub_rc = fp_cupti_start(cupti_note, sizeof cupti_note);
  sanitizer_start();
  if (mode == 'c')
    cupti_sub_rc = fp_cupti_start(cupti_note, sizeof cupti_note);
  cupti_tried = mode == 'b' || mode == 'c';
}

__attribute__((destructor)) static void probe_fini(void)
{
  if (!header_printed)
    return;
  long acc = atomic_load(&n_accesses), launches = atomic_load(&n_launch_begin);
  long cupti = atomic_load(&fp_n_cupti_cb);
  const char *s = NULL;
  sanitizerGetResultString(san_sub_rc, &s);
  /* the verdict: what a reader needs to decide issue 23's design */
  const char *v;
  if (!san_subscribed)
    v = "SANITIZER-REFUSED";
  else if (!launches)
    v = "NO-LAUNCH-CALLBACKS";
  else if (!acc)
    v = "NO-ACCESSES";
  else if (cupti_tried && cupti_sub_rc != 0)
    v = "CUPTI-REFUSED";
  else if (cupti_tried && !atomic_load(&fp_n_cupti_launch))
    v = "CUPTI-SILENT";
  else if (cupti_tried)
    v = "COEXIST";
  else
    v = "ACCESSES-REPORTED";
  pthread_mutex_lock(&print_lock);
  fprintf(out,
          "verdict mode=%c sanitizerSubscribe=%d(%s) cuptiSubscribe=%s "
          "cupti_order=%s launches=%ld/%ld instrumented=%ld modules_patched=%ld "
          "patch_errors=%ld accesses=%ld dropped=%ld ranges=%ld "
          "attributed=%ld launch_api_callbacks=%ld readback_errors=%ld "
          "cupti_callbacks=%ld cupti_launch_callbacks=%ld "
          "cupti_during_instrumented=%ld first_error=\"%s\" cupti=\"%s\" "
          "=> %s\n",
          mode, (int)san_sub_rc, s ? s : "?",
          cupti_tried ? fp_cupti_name(cupti_sub_rc) : "not-tried",
          mode == 'b' ? "cupti-first" : mode == 'c' ? "sanitizer-first" : "-",
          launches, atomic_load(&n_launch_end), atomic_load(&n_instrumented),
          atomic_load(&n_modules), atomic_load(&n_patch_errors), acc,
          atomic_load(&n_dropped), atomic_load(&n_ranges),
          atomic_load(&n_attributed), atomic_load(&n_san_api),
          atomic_load(&n_readback_errors), cupti,
          atomic_load(&fp_n_cupti_launch), atomic_load(&fp_n_cupti_during),
          first_error, cupti_note, v);
  fflush(out);
  pthread_mutex_unlock(&print_lock);
}

/* the probe exports nothing but its presence (a program may check for it) */
EXPORT int cl_footprint_probe_version = 1;

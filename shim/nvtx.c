/* nvtx.c - the names a program gives its streams and threads through NVTX
 * (nvtxNameCudaStreamA/W, nvtxNameCuStreamA/W, nvtxNameOsThreadA/W), so
 * that reports can call them by those names.
 *
 * NVTX (the header-only NVTX 3 of the CUDA toolkit, compiled into the
 * program, and the older libnvToolsExt.so) does nothing unless a tool is
 * attached; at its first call it reads the environment variable
 * NVTX_INJECTION64_PATH, dlopen()s that library and calls its exported
 * InitializeInjectionNvtx2 (nvtx3/nvtxDetail/nvtxInit.h; the other lookups
 * there need the program rebuilt).  The shim does not set the variable (the
 * program and its children would see it in their environment); it wraps
 * getenv() instead: while the variable is unset and the shim is not
 * disabled, getenv("NVTX_INJECTION64_PATH") answers the shim's own path,
 * and every other name goes to the C library.  NVTX then dlopen()s the
 * shim, which is loaded already, and the InitializeInjectionNvtx2 below
 * attaches the six naming functions to NVTX's table; every other NVTX
 * function stays the no-op it is without a tool.  A user's own
 * NVTX_INJECTION64_PATH (Nsight Systems sets one) is left alone, and then
 * no names are recorded.
 *
 * Each name becomes a record (the names table of cudalens-db(5)); names
 * given before the recording started (a thread named before the first CUDA
 * call) are kept, up to PENDING of them, and written when it starts. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "capture.h"
#include "nvtx.h"
#include "ring.h"
#include "shim.h"
#include "threads.h"
#include "writer.h"

#define NVTX_ENV "NVTX_INJECTION64_PATH"

/* ---- getenv ------------------------------------------------------------------ */

extern char **environ;

/* glibc's getenv, for a call made before the real one is known, or while
 * it is being looked up */
static char *scan_environ(const char *name)
{
  size_t len = strlen(name);
  for (char **e = environ; e && *e; e++)
    if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
      return *e + len + 1;
  return NULL;
}

static char *real_getenv(const char *name)
{
  typedef char *(*getenv_fn)(const char *);
  static getenv_fn real CL_STARTUP_DATA;
  static __thread int resolving;
  getenv_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
  if (!f) {
    if (resolving)
      return scan_environ(name);
    resolving = 1;
    /* dlvsym is not interposed (dlsym is: dlhook.c) */
#if defined(__x86_64__)
    f = (getenv_fn)dlvsym(RTLD_NEXT, "getenv", "GLIBC_2.2.5");
#elif defined(__aarch64__)
    f = (getenv_fn)dlvsym(RTLD_NEXT, "getenv", "GLIBC_2.17");
#endif
    resolving = 0;
    if (!f)
      return scan_environ(name);
    __atomic_store_n(&real, f, __ATOMIC_RELEASE);
  }
  return f(name);
}

/* the path this library was loaded from (a name NVTX's dlopen finds among
 * the loaded objects), or NULL */
static const char *self_path(void)
{
  static const char *path;
  const char *p = __atomic_load_n(&path, __ATOMIC_ACQUIRE);
  Dl_info info;
  if (!p && dladdr((void *)self_path, &info) && info.dli_fname &&
      strchr(info.dli_fname, '/')) {
    p = info.dli_fname;
    __atomic_store_n(&path, p, __ATOMIC_RELEASE);
  }
  return p;
}

CL_EXPORT char *getenv(const char *name)
{
  char *v = real_getenv(name);
  if (v || strcmp(name, NVTX_ENV) != 0)
    return v;
  const char *off = real_getenv("CUDALENS_DISABLE");
  if (off && strcmp(off, "1") == 0)
    return NULL;
  return (char *)self_path();
}

/* ---- the names ------------------------------------------------------------- */

#define PENDING 32
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cl_name_rec pending[PENDING];
static unsigned npending;

static void put(const struct cl_name_rec *n)
{
  struct cl_record *r = cl_ring_reserve(CL_REC_NAME);
  if (!r)
    return; /* counted as dropped by the ring */
  r->type = CL_REC_NAME;
  r->u.name = *n;
  r->u.name.seq = cl_next_seq();
  cl_ring_commit();
}

static void stash(const struct cl_name_rec *n)
{
  pthread_mutex_lock(&pending_lock);
  if (npending < PENDING)
    pending[npending++] = *n;
  pthread_mutex_unlock(&pending_lock);
}

void cl_nvtx_flush_pending(void)
{
  pthread_mutex_lock(&pending_lock);
  for (unsigned i = 0; i < npending; i++)
    put(&pending[i]);
  npending = 0;
  pthread_mutex_unlock(&pending_lock);
}

/* A name given while nothing is recorded (CUDA not loaded yet), or in a
 * forked child before its own first CUDA call (a record would start its
 * recording), is kept for later: written when the recording starts, or
 * with the next name given once the child records. */
static void give_name(uint8_t kind, uint64_t handle, struct cl_name_rec *n)
{
  n->kind = kind;
  n->handle = handle;
  if (!n->name[0])
    return;
  if (!cl_capture_recording() || cl_writer_inherited()) {
    stash(n);
    return;
  }
  cl_threads_before_record();
  if (__atomic_load_n(&npending, __ATOMIC_RELAXED))
    cl_nvtx_flush_pending();
  put(n);
}

/* fork takes the lock (shim_init.c lists every lock of the shim) */
void cl_nvtx_atfork_prepare(void) { pthread_mutex_lock(&pending_lock); }
void cl_nvtx_atfork_parent(void) { pthread_mutex_unlock(&pending_lock); }
void cl_nvtx_atfork_child(void) { pthread_mutex_init(&pending_lock, NULL); }

/* the first bytes of s, cut at a character boundary */
static void copy_utf8(struct cl_name_rec *n, const char *s)
{
  size_t len = s ? strnlen(s, sizeof n->name) : 0;
  if (len == sizeof n->name) {
    len--;
    while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
      len--; /* not inside a multibyte character */
  }
  memcpy(n->name, s ? s : "", len);
  n->name[len] = 0;
}

/* wchar_t is UTF-32 on Linux */
static void copy_wide(struct cl_name_rec *n, const wchar_t *s)
{
  size_t o = 0;
  for (; s && *s; s++) {
    uint32_t c = (uint32_t)*s;
    char b[4];
    size_t k;
    if (c < 0x80)
      b[0] = (char)c, k = 1;
    else if (c < 0x800)
      b[0] = (char)(0xc0 | c >> 6), b[1] = (char)(0x80 | (c & 0x3f)), k = 2;
    else if (c < 0x10000)
      b[0] = (char)(0xe0 | c >> 12), b[1] = (char)(0x80 | ((c >> 6) & 0x3f)),
      b[2] = (char)(0x80 | (c & 0x3f)), k = 3;
    else if (c < 0x110000)
      b[0] = (char)(0xf0 | c >> 18), b[1] = (char)(0x80 | ((c >> 12) & 0x3f)),
      b[2] = (char)(0x80 | ((c >> 6) & 0x3f)), b[3] = (char)(0x80 | (c & 0x3f)),
      k = 4;
    else
      b[0] = '?', k = 1;
    if (o + k >= sizeof n->name)
      break;
    memcpy(n->name + o, b, k);
    o += k;
  }
  n->name[o] = 0;
}

static void name_stream_a(void *stream, const char *s)
{
  struct cl_name_rec n;
  copy_utf8(&n, s);
  give_name(CL_NAME_STREAM, (uint64_t)(uintptr_t)stream, &n);
}

static void name_stream_w(void *stream, const wchar_t *s)
{
  struct cl_name_rec n;
  copy_wide(&n, s);
  give_name(CL_NAME_STREAM, (uint64_t)(uintptr_t)stream, &n);
}

static void name_thread_a(uint32_t tid, const char *s)
{
  struct cl_name_rec n;
  copy_utf8(&n, s);
  give_name(CL_NAME_THREAD, tid, &n);
}

static void name_thread_w(uint32_t tid, const wchar_t *s)
{
  struct cl_name_rec n;
  copy_wide(&n, s);
  give_name(CL_NAME_THREAD, tid, &n);
}

/* ---- the injection entry point ------------------------------------------------ */

/* From nvtx3/nvtxDetail/nvtxTypes.h (a stable ABI: constants are only ever
 * added): export table and callback-module ids, and the slots of the
 * naming functions. */
enum {
  NVTX_ETID_CALLBACKS = 1,
  NVTX_CB_MODULE_CORE = 1,
  NVTX_CB_MODULE_CUDA = 2,
  NVTX_CB_MODULE_CUDART = 4,
  NVTX_CBID_CORE_NameOsThreadA = 14,
  NVTX_CBID_CORE_NameOsThreadW = 15,
  NVTX_CBID_CUDA_NameCuStreamA = 5,
  NVTX_CBID_CUDA_NameCuStreamW = 6,
  NVTX_CBID_CUDART_NameCudaStreamA = 3,
  NVTX_CBID_CUDART_NameCudaStreamW = 4,
};
typedef void (*nvtx_fn)(void);
typedef nvtx_fn **nvtx_table;
struct nvtx_callbacks {
  size_t struct_size;
  int (*GetModuleFunctionTable)(int module, nvtx_table *table,
                                unsigned *size);
};

static int attach(const struct nvtx_callbacks *cb, int module, unsigned slot,
                  nvtx_fn fn)
{
  nvtx_table table = NULL;
  unsigned size = 0;
  if (!cb->GetModuleFunctionTable(module, &table, &size) || !table ||
      slot >= size || !table[slot])
    return 0;
  *table[slot] = fn;
  return 1;
}

CL_EXPORT int
InitializeInjectionNvtx2(const void *(*get_export_table)(uint32_t id))
{
  const struct nvtx_callbacks *cb =
      get_export_table ? get_export_table(NVTX_ETID_CALLBACKS) : NULL;
  if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
    return 0;
  int n = 0;
  n += attach(cb, NVTX_CB_MODULE_CUDART, NVTX_CBID_CUDART_NameCudaStreamA,
              (nvtx_fn)name_stream_a);
  n += attach(cb, NVTX_CB_MODULE_CUDART, NVTX_CBID_CUDART_NameCudaStreamW,
              (nvtx_fn)name_stream_w);
  n += attach(cb, NVTX_CB_MODULE_CUDA, NVTX_CBID_CUDA_NameCuStreamA,
              (nvtx_fn)name_stream_a);
  n += attach(cb, NVTX_CB_MODULE_CUDA, NVTX_CBID_CUDA_NameCuStreamW,
              (nvtx_fn)name_stream_w);
  n += attach(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_NameOsThreadA,
              (nvtx_fn)name_thread_a);
  n += attach(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_NameOsThreadW,
              (nvtx_fn)name_thread_w);
  CL_LOG(CL_LOG_DEBUG, "NVTX attached (%d naming functions)", n);
  return 1;
}

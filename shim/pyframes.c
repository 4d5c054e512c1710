/* pyframes.c - the Python stack of a CUDA call made from Python code.
 *
 * PyTorch users want "train.py:42", not a libtorch frame.  When the calling
 * thread runs Python, cl_pystack_capture() returns the interned string of up
 * to PY_MAX_FRAMES Python frames, "file:line:function" lines innermost first
 * (calls.pystack), else 0.
 *
 * It runs inside CUDA API calls, usually WITHOUT the GIL (PyTorch releases
 * it around op dispatch), on any thread.  So it never allocates Python
 * objects, touches reference counts, takes the GIL or calls Python code: it
 * only reads memory that cannot change under it.  The thread's frames are
 * stable while the thread is inside our callback (only the thread itself
 * pushes and pops them), each frame holds a strong reference to its code
 * object, and code objects hold their file and function names (immutable
 * str objects) and line tables.  Functions of the interpreter used:
 *   PyGILState_GetThisThreadState  reads a TLS slot (pthread_getspecific);
 *                                  the thread's own state, GIL held or not
 *   PyCode_Addr2Line               walks co_linetable (a bytes object) with
 *                                  a cursor on the C stack; no allocation
 *                                  (Objects/codeobject.c; 3.11 may first
 *                                  read the lazily built _co_linearray)
 *   Py_IsInitialized, _Py_IsFinalizing / Py_IsFinalizing  read _PyRuntime
 * The interpreter's frame chain is internal, so its layout is hardcoded per
 * minor version (x86-64 and aarch64, LP64, default build), from CPython's
 * Include/cpython/pystate.h (PyThreadState.cframe in 3.11/3.12,
 * .current_frame in 3.13), Include/internal/pycore_frame.h
 * (_PyInterpreterFrame; _PyCFrame in 3.11/3.12 lives in cpython/pystate.h),
 * Include/cpython/code.h (PyCodeObject) and Include/cpython/unicodeobject.h
 * (PyASCIIObject, PyCompactUnicodeObject) of v3.11.7, v3.12.1 and v3.13.0,
 * checked with offsetof() against those headers; these layouts do not
 * change within a minor version.  Other versions, and free-threaded builds
 * (3.13t, different object header), are left alone with one INFO line.
 *
 * Frames skipped as the interpreter's own tracebacks skip them: C-stack
 * entry frames (FRAME_OWNED_BY_CSTACK, 3.12+) and incomplete frames (not
 * yet past their RESUME).  Names are read in place when the str is compact
 * ASCII, or compact with its UTF-8 form already cached; otherwise "?".
 *
 * Cost: a per-thread cache maps the (code object, instruction offset) chain
 * of the innermost frames to the interned id, so a repeated call site costs
 * a walk of at most PY_MAX_FRAMES frames and one compare; a new chain costs
 * PyCode_Addr2Line per frame (memoized per thread by code object and
 * offset), the string of its lines and one cl_intern.  The cache holds 512
 * chains, four ways a set, the least recently found replaced, the set
 * chosen by the hash's high bits: of 100 call sites called in turn
 * (tests/python/pyframes.py), a direct-mapped cache of 256 built 25-42%
 * again every round, where two sites share a slot; this one 0-5%
 * (bench/README.md, session 9). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pyframes.h"
#include "selftime.h"
#include "shim.h"
#include "stack.h"

#define PY_MAX_FRAMES 32   /* nn.Module nesting puts the user's frame 10-20 deep */
#define PY_MAX_WALK 512    /* frames looked at per capture, skipped included */
#define STACK_WAYS 4       /* per thread: STACK_SETS sets of STACK_WAYS stacks */
#define STACK_SET_BITS 7
#define STACK_SETS (1 << STACK_SET_BITS)
#define LINE_BITS 9
#define LINE_CACHE (1 << LINE_BITS) /* per thread, direct mapped */
#define NAME_MAX_LEN 1024  /* longest file or function name copied */

/* Offsets in bytes; NONE where the field does not exist. */
#define NONE ((size_t)-1)
struct py_layout {
  unsigned minor;
  size_t ts_cframe;      /* PyThreadState.cframe (3.11, 3.12) */
  size_t cf_current;     /* _PyCFrame.current_frame */
  size_t ts_current;     /* PyThreadState.current_frame (3.13) */
  size_t fr_code;        /* _PyInterpreterFrame.f_code / f_executable */
  size_t fr_previous;    /* .previous */
  size_t fr_instr;       /* .prev_instr (3.11, 3.12) / .instr_ptr (3.13) */
  size_t fr_owner;       /* .owner (char) */
  int owner_generator;   /* FRAME_OWNED_BY_GENERATOR */
  int owner_cstack;      /* FRAME_OWNED_BY_CSTACK, -1 when none */
  size_t co_filename, co_name;
  size_t co_firsttraceable; /* int _co_firsttraceable (code units) */
  size_t co_code;        /* co_code_adaptive: the first code unit */
  size_t str_state;      /* PyASCIIObject.state (bit field, 32 bits) */
  size_t str_ascii_data; /* sizeof(PyASCIIObject) */
  size_t str_utf8;       /* PyCompactUnicodeObject.utf8 */
};

static const struct py_layout layouts[] = {
    /* 3.11: cframe 56 -> _PyCFrame{int use_tracing; current_frame @8};
     * frame {f_func, f_globals, f_builtins, f_locals, f_code @32,
     * frame_obj, previous @48, prev_instr @56, int stacktop, bool is_entry,
     * char owner @69}; owners THREAD 0, GENERATOR 1, FRAME_OBJECT 2;
     * PyASCIIObject has wstr, sizeof 48 */
    {11, 56, 8, NONE, 32, 48, 56, 69, 1, -1, 112, 120, 168, 184, 32, 48, 56},
    /* 3.12: _PyCFrame{current_frame @0, previous}; frame {f_code @0,
     * previous @8, f_funcobj, f_globals, f_builtins, f_locals, frame_obj,
     * prev_instr @56, int stacktop, uint16_t return_offset, char owner @70};
     * CSTACK 3; PyASCIIObject sizeof 40 */
    {12, 56, 0, NONE, 0, 8, 56, 70, 1, 3, 112, 120, 176, 192, 32, 40, 48},
    /* 3.13: tstate->current_frame @72; frame {f_executable @0 (code or
     * None), previous @8, ..., instr_ptr @56, stacktop, return_offset,
     * owner @70} */
    {13, NONE, 0, 72, 0, 8, 56, 70, 1, 3, 112, 120, 184, 200, 32, 40, 48},
};

/* PyASCIIObject.state bits (GCC bit-field order on little-endian LP64):
 * interned:2, kind:3, compact:1, ascii:1, ... */
#define STATE_COMPACT 0x20u
#define STATE_ASCII 0x40u
#define OB_TYPE 8 /* PyObject.ob_type, after ob_refcnt */

static struct {
  const struct py_layout *L;
  void *(*get_tstate)(void);
  int (*addr2line)(const void *code, int addrq);
  int (*is_initialized)(void);
  int (*is_finalizing)(void);
  const void *code_type, *unicode_type;
} py;
static pthread_once_t detect_once = PTHREAD_ONCE_INIT;
static _Atomic int ready; /* 1: Python found and supported */
static pthread_key_t cache_key;

/* ---- raw reads ------------------------------------------------------------ */
static inline const char *ptr_at(const char *base, size_t off)
{
  const char *p;
  memcpy(&p, base + off, sizeof p);
  return p;
}

static inline int int_at(const char *base, size_t off)
{
  int v;
  memcpy(&v, base + off, sizeof v);
  return v;
}

/* The text of a str object, or NULL when it cannot be read in place. */
static const char *str_text(const char *s)
{
  const struct py_layout *L = py.L;
  if (!s || ptr_at(s, OB_TYPE) != py.unicode_type)
    return NULL;
  uint32_t state;
  memcpy(&state, s + L->str_state, sizeof state);
  if (!(state & STATE_COMPACT))
    return NULL;
  if (state & STATE_ASCII)
    return s + L->str_ascii_data;
  return ptr_at(s, L->str_utf8); /* cached UTF-8 form, or NULL */
}

/* ---- detection, once ------------------------------------------------------ */
static void free_cache(void *p);

static void detect(void)
{
  if (!cl_cfg.python || sizeof(void *) != 8) /* layouts are LP64 */
    return;
  py.get_tstate = (void *(*)(void))cl_dl_sym_real(RTLD_DEFAULT,
                                         "PyGILState_GetThisThreadState");
  if (!py.get_tstate)
    return; /* not a Python process */
  const unsigned long *version = cl_dl_sym_real(RTLD_DEFAULT, "Py_Version");
  if (!version) {
    CL_LOG(CL_LOG_INFO, "Python older than 3.11: Python call sites are not "
                        "recorded");
    return;
  }
  unsigned major = (unsigned)(*version >> 24) & 0xff;
  unsigned minor = (unsigned)(*version >> 16) & 0xff;
  for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
    if (major == 3 && layouts[i].minor == minor)
      py.L = &layouts[i];
  if (!py.L) {
    CL_LOG(CL_LOG_INFO, "Python %u.%u is not supported: Python call sites "
                        "are not recorded", major, minor);
    return;
  }
  if (cl_dl_sym_real(RTLD_DEFAULT, "_Py_DecRefShared")) {
    CL_LOG(CL_LOG_INFO, "free-threaded Python %u.%u is not supported: Python "
                        "call sites are not recorded", major, minor);
    return;
  }
  py.addr2line =
      (int (*)(const void *, int))cl_dl_sym_real(RTLD_DEFAULT, "PyCode_Addr2Line");
  py.is_initialized = (int (*)(void))cl_dl_sym_real(RTLD_DEFAULT, "Py_IsInitialized");
  py.is_finalizing = (int (*)(void))cl_dl_sym_real(RTLD_DEFAULT, "Py_IsFinalizing");
  if (!py.is_finalizing)
    py.is_finalizing = (int (*)(void))cl_dl_sym_real(RTLD_DEFAULT, "_Py_IsFinalizing");
  py.code_type = cl_dl_sym_real(RTLD_DEFAULT, "PyCode_Type");
  py.unicode_type = cl_dl_sym_real(RTLD_DEFAULT, "PyUnicode_Type");
  if (!py.addr2line || !py.is_initialized || !py.code_type ||
      !py.unicode_type || pthread_key_create(&cache_key, free_cache)) {
    CL_LOG(CL_LOG_INFO, "Python %u.%u lacks an expected symbol: Python call "
                        "sites are not recorded", major, minor);
    return;
  }
  /* a call's native stack ends where its Python stack begins */
  cl_stack_python_at((const void *)py.get_tstate);
  atomic_store(&ready, 1);
  CL_LOG(CL_LOG_INFO, "Python %u.%u: recording Python call sites", major,
         minor);
}

/* ---- per-thread caches ------------------------------------------------------ */
struct pyframe {
  const char *code;
  uint32_t offset;  /* bytes from the first code unit */
  uint32_t check;   /* from the name objects: a reused code address */
};

struct stack_entry {
  uint32_t id;
  uint8_t n;
  struct pyframe f[PY_MAX_FRAMES];
};

/* a set's hashes and ages in one cache line, its stacks apart */
struct stack_set {
  uint64_t hash[STACK_WAYS];
  uint32_t found[STACK_WAYS]; /* the thread's capture count when last found;
                               * 0: empty */
};

struct line_entry {
  struct pyframe key;
  char *text;       /* "file:line:function", malloc'd */
};

struct thread_cache {
  struct stack_set sets[STACK_SETS];
  struct stack_entry stacks[STACK_SETS][STACK_WAYS];
  uint32_t captures;
  struct line_entry lines[LINE_CACHE];
};

/* the capture count, never 0 (an empty way's) */
static inline uint32_t tick(struct thread_cache *tc)
{
  return ++tc->captures ? tc->captures : ++tc->captures;
}

static __thread struct thread_cache *tcache;
static __thread int tcache_failed;
static __thread unsigned long built; /* captures not in the cache */

unsigned long cl_pystack_built(void) { return built; }

/* runs on the exiting thread: later CUDA calls of it (from other
 * destructors) capture uncached */
static void free_cache(void *p)
{
  struct thread_cache *tc = p;
  tcache = NULL;
  tcache_failed = 1;
  for (size_t i = 0; i < LINE_CACHE; i++)
    free(tc->lines[i].text);
  free(tc);
}

static struct thread_cache *thread_cache(void)
{
  if (tcache || tcache_failed)
    return tcache;
  tcache = calloc(1, sizeof *tcache);
  if (!tcache || pthread_setspecific(cache_key, tcache)) {
    free(tcache);
    tcache = NULL;
    tcache_failed = 1;
  }
  return tcache;
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
  h ^= v;
  h *= 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 29);
}

/* (the fields compared as bytes: a pyframe has no padding) */
_Static_assert(sizeof(struct pyframe) ==
                   sizeof(const char *) + 2 * sizeof(uint32_t),
               "struct pyframe has padding");
static int same_frames(const struct pyframe *a, const struct pyframe *b,
                       int n)
{
  return !memcmp(a, b, (size_t)n * sizeof *a);
}

/* Append s to buf (at *len, capacity cap), replacing newlines. */
static void append(char *buf, size_t *len, size_t cap, const char *s,
                   size_t max)
{
  for (size_t i = 0; s[i] && i < max && *len + 1 < cap; i++)
    buf[(*len)++] = s[i] == '\n' || s[i] == '\r' ? '?' : s[i];
  buf[*len] = 0;
}

/* "file:line:function" of one frame, memoized per thread when TC; else
 * (the thread has no cache) formatted into tmp. */
static const char *frame_line(struct thread_cache *tc, const struct pyframe *f,
                              char *tmp, size_t tmpsz)
{
  struct line_entry *e = NULL;
  if (tc) {
    uint64_t h = mix(mix((uint64_t)(uintptr_t)f->code, f->offset), f->check);
    e = &tc->lines[cl_hash_bits(h, LINE_BITS)];
    if (e->text && e->key.code == f->code && e->key.offset == f->offset &&
        e->key.check == f->check)
      return e->text;
  }
  const struct py_layout *L = py.L;
  const char *file = str_text(ptr_at(f->code, L->co_filename));
  const char *name = str_text(ptr_at(f->code, L->co_name));
  int line = py.addr2line(f->code, (int)f->offset);
  char num[16];
  size_t len = 0;
  tmp[0] = 0;
  append(tmp, &len, tmpsz, file ? file : "?", NAME_MAX_LEN);
  snprintf(num, sizeof num, ":%d:", line > 0 ? line : 0);
  append(tmp, &len, tmpsz, num, sizeof num);
  append(tmp, &len, tmpsz, name ? name : "?", NAME_MAX_LEN);
  char *text = e ? strdup(tmp) : NULL;
  if (!text)
    return tmp;
  free(e->text);
  e->key = *f;
  e->text = text;
  return text;
}

/* ---- the capture ------------------------------------------------------------ */
/* The frames of thread state TS, innermost first, into F (PY_MAX_FRAMES) and
 * their hash into *HP: their number.  Inlined once per layout with L a
 * constant (walk_as), so that its offsets are immediates rather than loads
 * (a frame took about 75 instructions with L read from memory). */
static inline __attribute__((always_inline)) int
walk(const struct py_layout *L, const char *ts, struct pyframe *f,
     uint64_t *hp)
{
  const void *code_type = py.code_type;
  const char *fr;
  if (L->ts_current != NONE) {
    fr = ptr_at(ts, L->ts_current);
  } else {
    const char *cframe = ptr_at(ts, L->ts_cframe);
    fr = cframe ? ptr_at(cframe, L->cf_current) : NULL;
  }
  int n = 0;
  uint64_t h = 0x51ed270b27164d8fULL;
  /* (at most PY_MAX_WALK frames looked at, PY_MAX_FRAMES kept) */
  for (int left = PY_MAX_WALK; fr && left > 0;
       left--, fr = ptr_at(fr, L->fr_previous)) {
    int owner = (signed char)fr[L->fr_owner];
    if (owner == L->owner_cstack)
      continue;
    const char *code = ptr_at(fr, L->fr_code);
    if (!code || ptr_at(code, OB_TYPE) != code_type)
      continue; /* 3.13: None in a shim frame */
    const char *first = code + L->co_code;
    const char *instr = ptr_at(fr, L->fr_instr);
    if (owner != L->owner_generator &&
        instr < first + 2 * (ptrdiff_t)int_at(code, L->co_firsttraceable))
      continue; /* incomplete: not yet running its own code */
    if (instr < first)
      continue;
    uintptr_t names = (uintptr_t)ptr_at(code, L->co_filename) ^
                      ((uintptr_t)ptr_at(code, L->co_name) << 7);
    f[n].code = code;
    f[n].offset = (uint32_t)(instr - first);
    f[n].check = (uint32_t)(names ^ (names >> 32));
    /* (one mix a frame: the hash only picks the cache set, whose frames
     * are compared in full) */
    h = mix(h, (uintptr_t)code ^ ((uint64_t)f[n].offset << 44) ^
                   ((uint64_t)f[n].check << 20));
    if (++n == PY_MAX_FRAMES)
      break;
  }
  *hp = h;
  return n;
}

/* walk() with py.L's layout as a constant */
static int walk_as(const char *ts, struct pyframe *f, uint64_t *hp)
{
  _Static_assert(sizeof layouts / sizeof *layouts == 3,
                 "walk_as: a case for each layout");
  switch (py.L - layouts) {
  case 0: return walk(&layouts[0], ts, f, hp);
  case 1: return walk(&layouts[1], ts, f, hp);
  default: return walk(&layouts[2], ts, f, hp);
  }
}

uint32_t cl_pystack_capture(void)
{
  if (!atomic_load_explicit(&ready, memory_order_relaxed)) {
    pthread_once(&detect_once, detect);
    if (!atomic_load(&ready))
      return 0;
  }
  if (!py.is_initialized() || (py.is_finalizing && py.is_finalizing()))
    return 0;
  const char *ts = py.get_tstate();
  if (!ts)
    return 0; /* this thread never ran Python */
  struct pyframe f[PY_MAX_FRAMES];
  uint64_t h;
  int n = walk_as(ts, f, &h);
  if (!n)
    return 0;
  struct thread_cache *tc = thread_cache();
  /* (the set from the hash's high bits, multiplied: chains that differ in
   * one frame often share mix()'s low bits; with them picking the set, 6
   * of 150 sites fell in one set of 4 in a test run) */
  unsigned k = cl_hash_bits(h, STACK_SET_BITS);
  struct stack_set *set = tc ? &tc->sets[k] : NULL;
  struct stack_entry *ways = tc ? tc->stacks[k] : NULL;
  for (int w = 0; set && w < STACK_WAYS; w++)
    if (set->found[w] && set->hash[w] == h && ways[w].n == n &&
        same_frames(ways[w].f, f, n)) {
      set->found[w] = tick(tc);
      return ways[w].id;
    }
  built++;
  CL_PHASE_ADD(CL_PH_PY_BUILT, 1);
  char buf[16384]; /* append() truncates at the end */
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n; i++) {
    char tmp[2 * NAME_MAX_LEN + 32];
    const char *line = frame_line(tc, &f[i], tmp, sizeof tmp);
    if (i && len + 1 < sizeof buf) {
      buf[len++] = '\n';
      buf[len] = 0;
    }
    append(buf, &len, sizeof buf, line, sizeof tmp);
  }
  uint32_t id = cl_intern(buf);
  if (set && id) { /* into an empty way, else the least recently found */
    int v = 0;
    for (int w = 0; w < STACK_WAYS; w++) {
      if (!set->found[w]) {
        v = w;
        break;
      }
      /* (ages as captures since: unsigned, right across a wrap) */
      if (tc->captures - set->found[w] > tc->captures - set->found[v])
        v = w;
    }
    set->hash[v] = h;
    set->found[v] = tick(tc);
    ways[v].id = id;
    ways[v].n = (uint8_t)n;
    memcpy(ways[v].f, f, (size_t)n * sizeof *f);
  }
  return id;
}

/* shim.h - what every part of libcudalens.so shares: configuration,
 * logging, the record that travels from the application's threads to the
 * writer (with its sequence number, its clocks and its interned strings),
 * the real functions behind the wrappers and the API table.  Each module's
 * own entry points are in the header next to it (ring.h, writer.h,
 * capture.h, ...), which the modules that call it include.  Nothing here is
 * exported from the library. */
#ifndef CUDALENS_SHIM_H
#define CUDALENS_SHIM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "cudalens/format.h"
#include "cudalens/outpath.h"
#include "cudalens/visibility.h"

/* The few variables that every process touches while the shim starts and in
 * a wrapper that passes the call through (the shim's state, stderr as it
 * was, the real functions looked up): one section, placed by the linker
 * beside .data, so that a process that never uses CUDA faults in one page
 * for them, not one per module (.bss has the recorder's large arrays
 * between the modules' variables; issue 24, item 10). */
#define CL_STARTUP_DATA __attribute__((section("cl_startup")))

/* The code that every process runs (the constructors and what they call,
 * the destructor's path while nothing records): one place at the start of
 * .text, where GNU ld and lld put .text.startup.* (beside the
 * constructors, which GCC puts in .text.startup, and _init), so that the
 * kernel's fault-around maps it with one fault, not one per 64 KiB window
 * of code that it spans (issue 24, item 10; bench/README.md, "Fourth
 * round").  Not for the wrappers' own code: that runs in CUDA programs. */
#define CL_STARTUP_CODE __attribute__((section(".text.startup.cl")))

/* A string constant that every process reads at start (the names looked
 * up, the prefix of the variables, CUDA's file names): in RELRO, which the
 * loader writes (relocates) in every process anyway and then makes
 * read-only, not in .rodata, a window of its own for the fault-around.
 * Read-only all the same; never executable. */
#define CL_STARTUP_STR(s)                                                      \
  ({                                                                           \
    static const char cl_s_[] __attribute__((section(".data.rel.ro.cl"))) = \
        s;                                                                     \
    cl_s_;                                                                     \
  })

/* The slot of KEY (a pointer, an address) in an open-addressed table of
 * 2^BITS slots: the high bits of a multiplicative (Fibonacci) hash, which
 * depend on every bit of the key; the keys are mostly aligned, so their
 * low bits alone would crowd a few slots. */
static inline unsigned cl_hash_bits(uint64_t key, unsigned bits)
{
  return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* String tests for the start-up code: the C library's strcmp, strncmp and
 * strrchr are each a lazy binding that the loader resolves on the first
 * call (~1,000 instructions, a symbol lookup) in every process, CUDA or
 * not; these are inlined. */
static inline __attribute__((always_inline)) int cl_starts_with(const char *s,
                                                                const char *p)
{
  while (*p)
    if (*s++ != *p++)
      return 0;
  return 1;
}
static inline __attribute__((always_inline)) int cl_str_eq(const char *a,
                                                           const char *b)
{
  while (*a && *a == *b)
    a++, b++;
  return *a == *b;
}

/* ---- configuration (config.c), read once from CUDALENS_* variables ------- */
struct cl_config {
  const char *output;       /* CUDALENS_OUTPUT pattern */
  const char *cupti_library;/* CUDALENS_CUPTI_LIBRARY or NULL */
  const char *manifest;     /* CUDALENS_MANIFEST or NULL */
  int debuglevel;           /* CUDALENS_DEBUGLEVEL */
  int disable;              /* CUDALENS_DISABLE */
  int stack_depth;          /* CUDALENS_STACK_DEPTH, <= CL_MAX_FRAMES */
  int gpu_activity;         /* CUDALENS_GPU_ACTIVITY */
  int kernel_times;         /* CUDALENS_KERNEL_TIMES: kernel activity too */
  unsigned buffer_records;  /* CUDALENS_BUFFER_RECORDS */
  int overflow_drop;        /* CUDALENS_OVERFLOW=drop */
  unsigned flush_ms;        /* CUDALENS_FLUSH_MS */
  int python;               /* CUDALENS_PYTHON: record Python stacks */
  int bench_phases;         /* CUDALENS_BENCH_PHASES (benchphase.c) */
  const char *cwd;          /* working directory at start, "" if unknown */
};
extern struct cl_config cl_cfg CL_HIDDEN;
void cl_config_load(void) CL_HIDDEN;

/* ---- logging (log.c): one macro, one level variable ---------------------- */
enum { CL_LOG_ERROR = 0, CL_LOG_WARN = 1, CL_LOG_INFO = 2, CL_LOG_DEBUG = 3 };
/* what descriptor 2 is at start-up: lines go there only while it is that,
 * a terminal, a pipe or a socket */
void cl_log_init(void) CL_HIDDEN;
void cl_log_write(int level, const char *fmt, ...) CL_HIDDEN
    __attribute__((format(printf, 2, 3)));
#define CL_LOG(level, ...)                                                     \
  do {                                                                         \
    if ((level) <= cl_cfg.debuglevel)                                          \
      cl_log_write((level), __VA_ARGS__);                                      \
  } while (0)

/* ---- records -------------------------------------------------------------- */
#define CL_MAX_FRAMES 32
/* A launch's pointer-like argument words, or a graph kernel node's: the
 * first CL_MAX_KARGS in its record, the rest (up to CL_LAUNCH_KARGS in all)
 * in CL_REC_KARGS records that follow it in its ring, committed with it
 * (cl_ring_put_kargs).  PyTorch's multi-tensor kernels
 * (the foreach ops, fused optimizers) pass up to 1,050 addresses in one
 * structure of up to 32 KiB (CUDA 12.1's parameter limit, 32,764 bytes). */
#define CL_MAX_KARGS 16
#define CL_LAUNCH_KARGS 1088

/* What one API call's parameters say, decoded through api.def. */
struct cl_args {
  uint64_t dst, src, bytes, value;
  uint64_t stream, event, handle;
  uint64_t graph;        /* a CUDA graph (instantiation, exec update) */
  uint32_t flags;
  int32_t priority, device, peer;
  uint8_t dir, memkind, has_device;
  uint32_t grid[3], block[3], shmem;
  /* access descriptors (cuMemSetAccess, cudaMemPoolSetAccess): bit d for
   * device d < 64: named, granted read, granted read and write */
  uint64_t acc_named, acc_read, acc_write;
};

struct cl_karg {
  uint16_t param, offset;
  uint8_t device_only; /* in device memory: the host cannot reach it */
  uint8_t uninit;      /* its parameter, a by-value aggregate, was not fully
                        * initialized, and this word may be stale
                        * (kparams.c) */
  uint8_t unresolved;  /* left for the writer: what the word may be
                        * (CL_KARG_MAYBE_*), the two fields above unset */
  uint64_t value;
};
enum { CL_KARG_MAYBE_ALLOC = 1, CL_KARG_MAYBE_CODE = 2 };

/* What an NCCL call says (shim/nccl.c, include/cudalens/nccl.def): a
 * collective on communicator COMM, or a communicator created (COMM, its
 * ID, RANK of NRANKS, PARENT for ncclCommSplit) or destroyed. */
struct cl_coll {
  uint64_t comm, comm_id, parent;
  uint64_t send, recv, count;      /* as passed */
  /* what this rank's call reads and writes (bytes 0: nothing) */
  uint64_t read_addr, read_bytes, write_addr, write_bytes;
  int32_t datatype, redop, root;   /* root: the root or the peer, -1 none */
  int32_t rank, nranks;            /* -1 unknown */
  uint8_t grouped;                 /* issued at ncclGroupEnd */
};

struct cl_hostcode; /* hostcode.h */
struct cl_call {
  uint64_t seq, start_ns, end_ns;
  uint32_t api;          /* index into cl_api_table */
  int32_t result;
  int32_t device;        /* -1 when no context was current */
  uint32_t context;      /* CUPTI context uid, 0 when none */
  uint32_t correlation, driver_correlation;
  uint32_t name;         /* interned kernel name, 0 when none */
  uint32_t pystack;      /* interned Python stack, 0 when none */
  uint32_t tid;
  uint8_t nframes, kargs_truncated;
  uint8_t kargs_deferred; /* kargs left for the writer to resolve as of
                           * kargs_gen, among kargs_code (kparams.c) */
  uint16_t nkargs;        /* the launch's words: the first CL_MAX_KARGS
                           * below, the rest in the CL_REC_KARGS records
                           * after this one */
  struct cl_args a;
  union {
    struct { /* kernels */
      struct cl_karg kargs[CL_MAX_KARGS];
      uint64_t kargs_gen;
      const struct cl_hostcode *kargs_code;
    };
    struct cl_coll coll; /* NCCL calls (nkargs 0) */
  };
  uint64_t frames[CL_MAX_FRAMES];
};

struct cl_activity {
  uint8_t kind;          /* enum cl_act_kind */
  uint8_t copy_kind, src_kind, dst_kind; /* CUPTI enums, mapped when written */
  uint32_t correlation, device, context, stream_id, name;
  int32_t src_device, dst_device;
  uint64_t start_ns, end_ns, bytes;
};
enum cl_act_kind { CL_ACT_KERNEL = 1, CL_ACT_MEMCPY, CL_ACT_MEMSET, CL_ACT_P2P };

struct cl_context_rec {
  uint64_t seq, handle;
  uint32_t uid;
  int32_t device;
  uint8_t destroyed;
};

struct cl_device_rec {
  int32_t ordinal, cc_major, cc_minor;
  uint64_t total_mem;
  char name[128], uuid[48], pci_bus_id[24];
};

enum cl_rec_type {
  CL_REC_CALL = 1,
  CL_REC_ACTIVITY,
  CL_REC_CONTEXT,
  CL_REC_DEVICE,
  CL_REC_DROP,           /* drop.count records of reason drop.reason lost */
  CL_REC_THREAD,         /* a host thread created or joined (threads.c) */
  CL_REC_NAME,           /* a name given through NVTX (nvtx.c) */
  CL_REC_GRAPH_EXEC,     /* a graph instantiated or an exec updated (graphs.c) */
  CL_REC_GRAPH_NODE,     /* one node of it */
  CL_REC_GRAPH_EDGE,     /* one edge of it */
  CL_REC_HOSTFN,         /* a host function ran (hostfn.c) */
  CL_REC_KARGS,          /* the words of the launch or graph node before
                          * it past its first CL_MAX_KARGS (nkargs) */
};

/* graph_execs row: at SEQ (cudaGraphInstantiate*, cudaGraphExecUpdate)
 * executable graph EXEC took the structure of graph GRAPH: NODES nodes and
 * EDGES edges follow as their own records (child graphs flattened) */
struct cl_gexec_rec {
  uint64_t seq, exec, graph;
  uint32_t nodes, edges;
  int32_t device;
  uint8_t truncated;     /* more nodes or edges than are kept */
};

/* graph_nodes row: node INDEX (0..) of the structure taken at SEQ */
struct cl_gnode_rec {
  uint64_t seq, handle;
  uint64_t added;        /* the call that added or captured it, 0: unknown */
  uint64_t dst, src, bytes, value, event;
  uint64_t constmask;    /* kernels: pointer-to-const parameters (not written) */
  uint32_t index, name;  /* name: interned kernel name, 0 none */
  uint8_t type;          /* enum cl_gnode */
  uint8_t dir;           /* copies: enum cl_dir */
  uint8_t kargs_truncated;
  uint16_t nkargs;       /* the first CL_MAX_KARGS below, the rest in the
                          * CL_REC_KARGS records after this one */
  uint32_t more;         /* (graphs.c) where the words past the first
                          * CL_MAX_KARGS lie in its structure's words */
  struct cl_karg kargs[CL_MAX_KARGS];
};

/* graph_edges row: node FROM before node TO in the structure taken at SEQ */
struct cl_gedge_rec {
  uint64_t seq;
  uint32_t from, to;
};

enum cl_thread_edge { CL_THREAD_CREATE, CL_THREAD_JOIN };

/* thread_edges row: TID created (or joined) thread OTHER at SEQ */
struct cl_thread_rec {
  uint64_t seq;
  uint32_t tid, other;
  uint8_t kind;          /* enum cl_thread_edge */
};

/* names row: at SEQ the program named stream or thread HANDLE (a stream
 * handle as the program passed it, or a thread id) NAME (UTF-8, cut) */
enum cl_name_kind { CL_NAME_STREAM = 1, CL_NAME_THREAD };
struct cl_name_rec {
  uint64_t seq, handle;
  uint8_t kind;          /* enum cl_name_kind */
  char name[256];
};

/* host_fn_runs row: at SEQ (time NS) thread TID started the host function
 * (or stream callback) enqueued by the call of correlation CORRELATION */
struct cl_hostfn_rec {
  uint64_t seq, ns;
  uint32_t tid, correlation;
};

struct cl_drop_rec {
  const char *reason;    /* a string literal */
  uint64_t count;
};

/* the words a CL_REC_KARGS record holds */
#define CL_KARGS_PER_SLOT (sizeof(struct cl_call) / sizeof(struct cl_karg))
struct cl_record {
  uint8_t type;
  union {
    struct cl_call call;
    struct cl_activity act;
    struct cl_context_rec ctx;
    struct cl_device_rec dev;
    struct cl_drop_rec drop;
    struct cl_thread_rec thread;
    struct cl_name_rec name;
    struct cl_gexec_rec gexec;
    struct cl_gnode_rec gnode;
    struct cl_gedge_rec gedge;
    struct cl_hostfn_rec hostfn;
    struct cl_karg kargs[CL_KARGS_PER_SLOT];
  } u;
};

/* ---- strings (strings.c): interned kernel names --------------------------- */
uint32_t cl_intern(const char *s) CL_HIDDEN;
/* Calls fn for every string with id > *watermark, then advances it. */
void cl_strings_drain(uint32_t *watermark,
                      void (*fn)(uint32_t id, const char *s, void *), void *arg)
    CL_HIDDEN;
void cl_strings_atfork_prepare(void) CL_HIDDEN;
void cl_strings_atfork_parent(void) CL_HIDDEN;
void cl_strings_atfork_child(void) CL_HIDDEN;

/* ---- the order of records (writer.c) ------------------------------------- */
/* the last number taken, on a cache line of its own: every record of every
 * thread takes one (the writer's drain snapshot shared its line) */
struct cl_seq_line {
  _Alignas(64) _Atomic uint64_t last;
  char rest[64 - sizeof(uint64_t)];
};
extern struct cl_seq_line cl_seq CL_HIDDEN;
static inline uint64_t cl_next_seq(void)
{
  return atomic_fetch_add_explicit(&cl_seq.last, 1, memory_order_relaxed) + 1;
}

/* ---- clocks (capture.c) --------------------------------------------------- */
/* CUPTI's clock (the recording's times) */
uint64_t cl_now_ns(void) CL_HIDDEN;
/* CLOCK_MONOTONIC in nanoseconds, for the shim's own waits and timeouts
 * (async-signal-safe, as clock_gettime is) */
static inline uint64_t cl_monotonic_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* when the shim started and when the program finished (CUPTI's clock) */
extern uint64_t cl_start_ns, cl_end_ns CL_HIDDEN;

/* ---- the real functions (dlreal.c), for every wrapper -------------------- */
/* The next definition of name (the C library's, or another preloaded
 * wrapper's) as a pointer of the given type, looked up on first use (by
 * CL_REAL_NAMED, the name given as a string: exitwrap.c's lie in RELRO); the
 * caller includes <dlfcn.h> with _GNU_SOURCE.  Looked up with the C
 * library's dlsym (cl_dl_sym_real), never the shim's own: these run in
 * signal handlers and under the shim's locks, where the dlsym wrapper's look
 * for NCCL (a lock, the loader's list) must not run. */
#define CL_REAL_NAMED(type, name_str)                                          \
  ({                                                                           \
    static type cl_fn_ CL_STARTUP_DATA;                                        \
    type cl_f_ = __atomic_load_n(&cl_fn_, __ATOMIC_RELAXED);                   \
    if (!cl_f_) {                                                              \
      cl_f_ = (type)cl_dl_sym_real(RTLD_NEXT, name_str);                       \
      __atomic_store_n(&cl_fn_, cl_f_, __ATOMIC_RELAXED);                      \
    }                                                                          \
    cl_f_;                                                                     \
  })
#define CL_REAL_AS(type, name) CL_REAL_NAMED(type, #name)
#define CL_REAL(name) CL_REAL_AS(__typeof__(name) *, name)

/* The C library's dlopen and dlsym (dlreal.c): every dlsym the shim makes
 * for itself goes through these, never through its own wrapper (which looks
 * for NCCL and CUDA, taking a lock: not in a signal handler, not under the
 * shim's locks; tests/capture/own_dlsym.test). */
void cl_dl_bind_real(void) CL_HIDDEN;
void *cl_dl_open_real(const char *file, int mode) CL_HIDDEN;
void *cl_dl_sym_real(void *handle, const char *name) CL_HIDDEN;

/* ---- the API table (decode.c), generated from api.def ---------------------- */
/* No pointers in it (a name is an offset into cl_api_names, the decoder is
 * reached by cl_api_decode): the table is read-only data that the loader
 * neither relocates nor copies in a process that never uses CUDA (issue
 * 24, item 10). */
struct cl_api {
  unsigned short name_at; /* cl_api_name(): e.g. "cudaMemcpyAsync_v3020" */
  unsigned short flags;   /* CL_ASYNC, CL_PTSZ */
  int domain;             /* CUpti_CallbackDomain */
  unsigned cbid;
  enum cl_op op;
};
#define CL_ASYNC 1u
#define CL_PTSZ 2u
/* the domain of the rows of NCCL functions (nccl.def), after api.def's;
 * their cbid is their index in nccl.def */
#define CL_DOMAIN_NCCL 0x4e43
/* the table index of NCCL function I of nccl.def */
extern const unsigned cl_api_nccl_first CL_HIDDEN;
extern const struct cl_api cl_api_table[] CL_HIDDEN;
extern const unsigned cl_api_count CL_HIDDEN;
/* every API's name, NUL-terminated, one after the other */
extern const struct cl_api_names cl_api_names CL_HIDDEN;
static inline const char *cl_api_name(const struct cl_api *api)
{
  return (const char *)&cl_api_names + api->name_at;
}
/* Reads the parameter struct PARAMS of a call of API into A (nothing for
 * NCCL's rows: shim/nccl.c records those). */
void cl_api_decode(const struct cl_api *api, const void *params,
                   struct cl_args *a) CL_HIDDEN;
/* Table index of (domain, cbid), or -1. */
int cl_api_lookup(int domain, unsigned cbid) CL_HIDDEN;
/* Table index of the API named NAME (CUPTI's name: cudaMemcpyAsync_v3020),
 * or -1; for the tests and benchmarks that make records by hand. */
int cl_api_named(const char *name) CL_HIDDEN;

/* The stream a call names, as recorded: 0 for the legacy default stream
 * (handle 0, or cudaStreamLegacy), CL_STREAM_PER_THREAD for the per-thread
 * default stream (cudaStreamPerThread, or 0 through a _ptsz/_ptds entry
 * point), else the handle. */
static inline uint64_t cl_stream_of(const struct cl_api *api, uint64_t s)
{
  if (s == CL_STREAM_LEGACY)
    return 0;
  if (s == 0 && (api->flags & CL_PTSZ))
    return CL_STREAM_PER_THREAD;
  return s;
}

#endif

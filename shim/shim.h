/* shim.h - what the parts of libcudalens.so share: configuration, logging,
 * the record that travels from the application's threads to the writer, and
 * each module's entry points.  Nothing here is exported from the library. */
#ifndef CUDALENS_SHIM_H
#define CUDALENS_SHIM_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include "cudalens/format.h"
#include "cudalens/outpath.h"
#include "cudalens/visibility.h"

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
  char cwd[4096];           /* working directory at start */
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

/* ---- the launcher's manifest (manifest.c), when CUDALENS_MANIFEST is set */
/* a recording started at PATH */
void cl_manifest_recording(const char *path) CL_HIDDEN;
/* this process is not recorded, or not in full, because of WHY (one line) */
void cl_manifest_problem(const char *why) CL_HIDDEN;

/* ---- records -------------------------------------------------------------- */
#define CL_MAX_FRAMES 32
#define CL_MAX_KARGS 16

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
  uint64_t value;
};

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
  uint8_t nframes, nkargs, kargs_truncated;
  struct cl_args a;
  union {
    struct cl_karg kargs[CL_MAX_KARGS]; /* kernels */
    struct cl_coll coll;                /* NCCL calls (nkargs 0) */
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
  uint8_t nkargs, kargs_truncated;
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
  } u;
};

/* ---- per-thread rings (ring.c) ------------------------------------------- */
/* Single producer (the owning thread), single consumer (the writer). */
struct cl_ring {
  struct cl_ring *next;          /* registry list, under the registry lock */
  _Atomic uint64_t head;         /* next slot the writer reads */
  _Atomic uint64_t tail;         /* next slot the owner fills */
  /* records lost (CUDALENS_OVERFLOW=drop): [0] calls and the rest,
   * [1] GPU activity records */
  _Atomic uint64_t dropped[2];
  _Atomic int dead;              /* owner thread exited */
  uint32_t tid;
  unsigned capacity;             /* power of two */
  struct cl_record slots[];
};
/* Reserve the next slot of this thread's ring for a record of TYPE, or NULL
 * (record dropped and counted).  Fill it, then cl_ring_commit(). */
struct cl_record *cl_ring_reserve(enum cl_rec_type type) CL_HIDDEN;
void cl_ring_commit(void) CL_HIDDEN;
/* Hand every ring to fn (under the registry lock) after freeing the drained
 * rings of exited threads; their drop counts are kept for
 * cl_ring_take_orphan_drops(). */
void cl_ring_foreach(void (*fn)(struct cl_ring *, void *), void *arg) CL_HIDDEN;
void cl_ring_take_orphan_drops(uint64_t lost[2]) CL_HIDDEN;
/* records lost because their thread's ring could not be allocated */
uint64_t cl_ring_take_unbuffered(void) CL_HIDDEN;
/* How often the program's threads found their ring full and waited for the
 * writer, and for how long in all (ns); since the start or the fork. */
void cl_ring_waits(uint64_t *count, uint64_t *ns) CL_HIDDEN;
uint32_t cl_gettid(void) CL_HIDDEN;

/* ---- host threads (threads.c) --------------------------------------------- */
/* Write this thread's pending create edge, if any; called before the
 * thread's first record. */
void cl_threads_before_record(void) CL_HIDDEN;
/* This process is the one the shim started in (or a fork() of it): marked
 * at the start and by fork()'s child handler */
void cl_ring_process_start(void) CL_HIDDEN;
/* 1 in a process the shim did not see start: a raw clone/clone3 child,
 * which records nothing (say: and says so, once) */
int cl_ring_unseen_process(int say) CL_HIDDEN;
void cl_ring_atfork_prepare(void) CL_HIDDEN;
void cl_ring_atfork_parent(void) CL_HIDDEN;
void cl_ring_atfork_child(void) CL_HIDDEN;

/* ---- NVTX names (nvtx.c) ---------------------------------------------------- */
/* write the names given before the recording started */
void cl_nvtx_flush_pending(void) CL_HIDDEN;
void cl_nvtx_atfork_prepare(void) CL_HIDDEN;
void cl_nvtx_atfork_parent(void) CL_HIDDEN;
void cl_nvtx_atfork_child(void) CL_HIDDEN;

/* ---- strings (strings.c): interned kernel names --------------------------- */
uint32_t cl_intern(const char *s) CL_HIDDEN;
/* Calls fn for every string with id > *watermark, then advances it. */
void cl_strings_drain(uint32_t *watermark,
                      void (*fn)(uint32_t id, const char *s, void *), void *arg)
    CL_HIDDEN;
void cl_strings_atfork_prepare(void) CL_HIDDEN;
void cl_strings_atfork_parent(void) CL_HIDDEN;
void cl_strings_atfork_child(void) CL_HIDDEN;

/* ---- the writer thread (writer.c) ----------------------------------------- */
extern _Atomic uint64_t cl_seq CL_HIDDEN;
static inline uint64_t cl_next_seq(void)
{
  return atomic_fetch_add_explicit(&cl_seq, 1, memory_order_relaxed) + 1;
}
void cl_writer_ensure_started(void) CL_HIDDEN; /* lazily, on first record */
int cl_writer_running(void) CL_HIDDEN;
/* the writer's state belongs to this process (not a vfork or raw clone
 * child's copy) */
int cl_writer_owned_here(void) CL_HIDDEN;
void cl_writer_wake(void) CL_HIDDEN;
/* End the recording: the writer drains every ring and closes the database,
 * noting how the process ended (meta end) and, with clean, that everything
 * was written.  Waits only while the writer makes progress, and never joins
 * unless clean; async-signal-safe when clean == 0.  No writer starts after. */
void cl_writer_end(const char *end, int clean) CL_HIDDEN;
void cl_writer_stop(int clean) CL_HIDDEN; /* end "exit" or "signal" */
int cl_writer_is_self(void) CL_HIDDEN;
/* a writer of this very process (not of a parent, nor one a vfork child
 * shares) is running */
int cl_writer_recording_here(void) CL_HIDDEN;
/* Around an exec: the database is written out and closed (end "exec");
 * pass suspend's result to resume when the exec failed. */
int cl_writer_suspend(void) CL_HIDDEN;
void cl_writer_resume(int suspended_by_caller) CL_HIDDEN;
/* A forked child that has not made a CUDA call of its own: everything it
 * holds is its parent's.  adopt: it now records on its own. */
int cl_writer_inherited(void) CL_HIDDEN;
void cl_writer_adopt(void) CL_HIDDEN;
void cl_writer_atfork_prepare(void) CL_HIDDEN;
void cl_writer_atfork_parent(void) CL_HIDDEN;
void cl_writer_atfork_child(void) CL_HIDDEN;

/* ---- the output file (outfile.c) ------------------------------------------ */
/* cl_outpath_expand: include/cudalens/outpath.h (common/outpath.c) */
/* Put a file holding buf (len bytes) at path, or path.1.db, ... when it
 * exists as a file, complete or not at all (no symlink followed, nothing
 * overwritten, a name that is no regular file never numbered); fills
 * chosen; 0, or -1 with a message in err. */
int cl_outpath_publish(const char *path, const void *buf, size_t len,
                       char *chosen, size_t chosensz, char *err, size_t errsz)
    CL_HIDDEN;

/* ---- call stacks and modules (stack.c, modules.c) -------------------------- */
int cl_stack_capture(uint64_t *frames, int max) CL_HIDDEN;
/* walks of this thread that libgcc did (the slow ones), for tests */
unsigned long cl_stack_slow_walks(void) CL_HIDDEN;
void cl_stack_init(void) CL_HIDDEN;
struct cl_module {
  char *path;
  uint64_t start, end, bias;
  char build_id[41];
};
/* Snapshot of loaded objects; returns count, *mods malloc'd (free with
 * cl_modules_free). */
int cl_modules_scan(struct cl_module **mods) CL_HIDDEN;
void cl_modules_free(struct cl_module *mods, int n) CL_HIDDEN;

/* ---- Python call sites (pyframes.c) ---------------------------------------- */
/* The interned Python stack of the calling thread ("file:line:function"
 * lines, innermost first, at most 8), or 0 when it runs no Python code.
 * Safe without the GIL; never calls into Python code. */
uint32_t cl_pystack_capture(void) CL_HIDDEN;

/* ---- CUDA in the process (cudaload.c, dlhook.c, shim_init.c) --------------- */
struct dl_phdr_info;
/* FN(info, ARG) for each loaded object (dl_iterate_phdr's order, until FN
 * returns nonzero), unless no object was loaded since the last walk that
 * passed the same SEEN (each caller keeps its own, zero at first); 0 when
 * nothing was loaded (FN was not called), else 1.  Cheap enough to run
 * after every dlopen(). */
int cl_loaded_walk(_Atomic unsigned long long *seen,
                   int (*fn)(struct dl_phdr_info *, void *), void *arg)
    CL_HIDDEN;
struct cl_cuda_found {
  char runtime[4096];    /* path of the loaded libcudart.so.N, "" when none */
  int runtime_major;     /* N, 0 when unknown */
  int driver;            /* libcuda.so.1 is loaded */
};
/* 1 when objects were loaded since the last scan and CUDA is among the
 * loaded ones (f says which). */
int cl_cuda_scan(struct cl_cuda_found *f) CL_HIDDEN;
/* 1 for the driver (libcuda.so[.1]), 2 for a runtime (libcudart.so[.N]) */
int cl_cuda_lib_kind(const char *path) CL_HIDDEN;
/* N of a libcudart.so.N path (following a libcudart.so link), or 0 */
int cl_cuda_runtime_major(const char *path) CL_HIDDEN;
/* The shim waits for CUDA to be loaded (not started, not disabled). */
int cl_shim_waiting(void) CL_HIDDEN;
/* Starts recording if CUDA was loaded since the last look; 1 if this call
 * started (or failed to start) it.  Never blocks. */
int cl_cuda_maybe_loaded(void) CL_HIDDEN;

/* ---- CUPTI binding (cupti_bind.c), capture (capture.c, cupti_activity.c) -- */
int cl_cupti_bind(const struct cl_cuda_found *f, char *why, size_t whysz)
    CL_HIDDEN;
int cl_capture_start(void) CL_HIDDEN;       /* subscribe; 0 on success */
void cl_capture_stop(void) CL_HIDDEN;
int cl_capture_recording(void) CL_HIDDEN;   /* subscribed now? */
int cl_activity_start(void) CL_HIDDEN;
void cl_activity_flush(int forced) CL_HIDDEN;
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

/* ---- kernel parameters and the allocation map (kparams.c) ------------------ */
void cl_allocmap_add(uint64_t start, uint64_t size, int kind, uint32_t flags)
    CL_HIDDEN;
void cl_allocmap_remove(uint64_t start) CL_HIDDEN;
/* The kind (enum cl_memkind) of the live allocation holding all of
 * [addr, addr+bytes), or CL_MEMKIND_UNKNOWN (pageable or not ours). */
int cl_allocmap_kind(uint64_t addr, uint64_t bytes) CL_HIDDEN;
/* The live allocation containing addr: 1 and its range, or 0. */
int cl_allocmap_find(uint64_t addr, uint64_t *start, uint64_t *end) CL_HIDDEN;
/* A device alias of pinned memory (cudaHostGetDevicePointer) that is not
 * the host pointer: kernel arguments through it are recorded, and reach
 * the host allocation. */
void cl_allocmap_alias(uint64_t device, uint64_t host) CL_HIDDEN;
/* cudaStreamAttachMemAsync: the managed allocation holding addr is now
 * attached as flags says (cudaMemAttachGlobal, Host or Single) */
void cl_allocmap_attach(uint64_t addr, uint32_t flags) CL_HIDDEN;
/* What the device reaches through kernel argument v and the host may race
 * with: the live managed allocation holding v (not attached to the host),
 * or pinned or registered memory (not read-only), through a device alias
 * too: 1 and the allocation's host range, else 0. */
int cl_allocmap_device_reach(uint64_t v, uint64_t *start, uint64_t *end)
    CL_HIDDEN;
/* Scan a launch's parameters for words pointing into live allocations. */
void cl_kparams_scan(void *func, void **params, struct cl_call *c) CL_HIDDEN;
/* a module is being unloaded: its CUfunction handles may be reused, so the
 * parameter layouts read so far are read again at their next launch */
void cl_kparams_module_unloading(void) CL_HIDDEN;
void cl_kparams_atfork_prepare(void) CL_HIDDEN;
void cl_kparams_atfork_parent(void) CL_HIDDEN;
void cl_kparams_atfork_child(void) CL_HIDDEN;

/* ---- CUDA graphs (graphs.c) -------------------------------------------------- */
/* NODE was added by call SEQ (an explicit cudaGraphAdd*Node) */
void cl_graph_node_added(uint64_t node, uint64_t seq) CL_HIDDEN;
/* a stream capture begins (1) or ends (0) */
void cl_graph_capture(int begin) CL_HIDDEN;
/* is STREAM (as recorded) capturing now? */
int cl_graph_capturing(uint64_t stream) CL_HIDDEN;
/* call SEQ was just made on STREAM: if it captures, the node it added */
void cl_graph_captured(uint64_t stream, uint64_t seq) CL_HIDDEN;
/* at SEQ, EXEC took the structure of GRAPH: write it */
void cl_graph_snapshot(uint64_t seq, uint64_t exec, uint64_t graph,
                       int32_t device) CL_HIDDEN;
/* EXEC was launched by call SEQ on STREAM: guard what its nodes touch */
void cl_graph_launched(uint64_t exec, uint64_t seq, uint64_t stream,
                       uint64_t tid, int32_t device) CL_HIDDEN;
void cl_graph_exec_destroyed(uint64_t exec) CL_HIDDEN;
/* at SEQ, kernel node NODE of EXEC took new arguments: write EXEC's
 * structure again with them */
void cl_graph_exec_kernel(uint64_t seq, uint64_t exec, uint64_t node,
                          const struct cl_karg *kargs, unsigned nkargs,
                          int truncated) CL_HIDDEN;
/* ---- what the driver says about memory (memquery.c) ------------------------- */
/* Completes the arguments of a successful allocation (ALLOC): the device of
 * a mapping's physical memory, the size and device of memory opened through
 * IPC or imported from a pool, the pool of a stream-ordered allocation. */
void cl_memquery_resolve(struct cl_args *a) CL_HIDDEN;
/* Ends the mappings (cuMemUnmap) that start in [start, start + size). */
void cl_allocmap_remove_range(uint64_t start, uint64_t size) CL_HIDDEN;

/* ---- the CUDA driver (driver.c, devices.c) ---------------------------------- */
void *cl_driver_sym(const char *name) CL_HIDDEN;
void cl_device_describe(int ordinal) CL_HIDDEN;

/* ---- the functions the shim wraps (sigwrap.c, syscalls.c) ------------------- */
/* The next definition of name (the C library's, or another preloaded
 * wrapper's) as a pointer of the given type, looked up on first use; the
 * caller includes <dlfcn.h> with _GNU_SOURCE.  Looked up with the C
 * library's dlsym (cl_dl_sym_real), never the shim's own: these run in
 * signal handlers and under the shim's locks, where the dlsym wrapper's look
 * for NCCL (a lock, the loader's list) must not run. */
#define CL_REAL_AS(type, name)                                                 \
  ({                                                                           \
    static type cl_fn_;                                                        \
    type cl_f_ = __atomic_load_n(&cl_fn_, __ATOMIC_RELAXED);                   \
    if (!cl_f_) {                                                              \
      cl_f_ = (type)cl_dl_sym_real(RTLD_NEXT, #name);                          \
      __atomic_store_n(&cl_fn_, cl_f_, __ATOMIC_RELAXED);                      \
    }                                                                          \
    cl_f_;                                                                     \
  })
#define CL_REAL(name) CL_REAL_AS(__typeof__(name) *, name)

/* ---- signals (signals.c, sigwrap.c) ---------------------------------------- */
void cl_signals_install(void) CL_HIDDEN;
/* SIGSEGV goes to handler first (nonzero: it was the shim's own fault),
 * whatever the program installs; 0 on success */
int cl_sigwrap_install(int (*handler)(int, siginfo_t *, void *)) CL_HIDDEN;
/* SIGSEGV the shim's again if the program set an action behind the
 * wrappers (raw system call): its handler becomes its view */
void cl_sigwrap_reclaim(void) CL_HIDDEN;
/* SIGTRAP too goes to handler first (the host check's single steps), then
 * to what the program installed; 0 on success */
int cl_sigwrap_install_trap(int (*handler)(int, siginfo_t *, void *))
    CL_HIDDEN;
/* While the program leaves sig to the default action, flush(sig) runs
 * before it; 0 when sig was taken */
int cl_sigwrap_flush_on(int sig, void (*flush)(int)) CL_HIDDEN;

/* ---- host accesses to memory of in-flight copies (hostguard.c) -------------- */
struct cl_host_access {
  uint64_t seq, address, copy_seq;
  const char *kind;      /* "read", "write" or "free" (string literals) */
  uint32_t tid, pystack;
  uint8_t nframes;
  uint64_t frames[CL_MAX_FRAMES];
};

struct cl_api;
/* ---- host functions (hostfn.c) ------------------------------------------- */
/* At the ENTER callback of the driver call that enqueues a host function
 * (api a HOST_FUNC row of the driver; params its CUPTI parameters): put
 * the trampoline in the user's function's place; returns its slot, NULL
 * when not done.  CORRELATION: the recorded call's (the runtime call's
 * when inside one).  STREAM and TID name the stream as the host check
 * does; CAPTURED: a stream is being captured (the function becomes a
 * graph node that may run many times). */
void *cl_hostfn_wrap(const struct cl_api *api, const void *params,
                     uint32_t correlation, uint64_t stream, uint64_t tid,
                     int captured) CL_HIDDEN;
/* the driver call failed: its slot is given back */
void cl_hostfn_failed(void *slot) CL_HIDDEN;
/* host functions enqueued without a trampoline (no slot) since last asked */
uint64_t cl_hostfn_take_unobserved(void) CL_HIDDEN;

void cl_hostguard_init(void) CL_HIDDEN;
void cl_hostguard_atfork_prepare(void) CL_HIDDEN;
void cl_hostguard_atfork_parent(void) CL_HIDDEN;
void cl_hostguard_atfork_child(void) CL_HIDDEN;
void cl_sigwrap_atfork_prepare(void) CL_HIDDEN;
void cl_sigwrap_atfork_parent(void) CL_HIDDEN;
void cl_sigwrap_atfork_child(void) CL_HIDDEN;
void cl_hostguard_copy(uint64_t seq, uint64_t stream, uint64_t tid,
                       int32_t device, int dtoh, uint64_t host, uint64_t bytes)
    CL_HIDDEN;
void cl_hostguard_kernel(uint64_t seq, uint64_t stream, uint64_t tid,
                         int32_t device, const struct cl_karg *kargs,
                         int nkargs, uint64_t const_params) CL_HIDDEN;
/* a stream created (created 1: non-blocking or not) or destroyed (0) */
void cl_hostguard_stream(uint64_t stream, int created, int nonblocking)
    CL_HIDDEN;
void cl_hostguard_sync(enum cl_op op, int32_t device, uint64_t stream,
                       uint64_t tid, uint64_t event, uint64_t seq) CL_HIDDEN;
uint64_t cl_hostguard_free(uint64_t addr) CL_HIDDEN;
void cl_hostguard_capture(int begin) CL_HIDDEN;
/* a stream is being captured into a graph (any stream) */
int cl_hostguard_capturing(void) CL_HIDDEN;
void cl_hostguard_record(const char *kind, uint64_t seq, uint64_t addr,
                         uint64_t copy_seq, const uint64_t *frames, int n,
                         uint32_t pystack) CL_HIDDEN;
void cl_hostguard_drain(void (*fn)(const struct cl_host_access *, void *),
                        void *arg, uint64_t *lost) CL_HIDDEN;
/* System calls on host memory (syscalls.c): the number of copies whose pages
 * are protected now; a call about to have the kernel read (kernel_writes 0)
 * or fill buffers within [addr, addr + len) lifts the protection over them,
 * getting a token (0: nothing was in the way), and settles it afterwards
 * with its buffers and the number of bytes transferred: copies whose pages
 * they touched are reported and released, the others protected again. */
extern _Atomic unsigned cl_hostguard_armed CL_HIDDEN;
int cl_hostguard_lift(uint64_t addr, uint64_t len, int kernel_writes)
    CL_HIDDEN;
void cl_hostguard_settle(int token, const struct iovec *iov, int iovcnt,
                         uint64_t done) CL_HIDDEN;

/* ---- NCCL (nccl.c, gotpatch.c) ---------------------------------------------- */
/* Loaded objects changed: when NCCL is among them and the shim records,
 * route the program's calls of the functions of nccl.def through the
 * shim (by their GOT entries).  Cheap when nothing was loaded.  Never
 * waits: while another thread looks, it leaves the look to that thread. */
void cl_nccl_maybe_loaded(void) CL_HIDDEN;
void cl_nccl_atfork_prepare(void) CL_HIDDEN;
void cl_nccl_atfork_parent(void) CL_HIDDEN;
void cl_nccl_atfork_child(void) CL_HIDDEN;
void cl_nccl_comms_atfork_prepare(void) CL_HIDDEN;
void cl_nccl_comms_atfork_parent(void) CL_HIDDEN;
void cl_nccl_comms_atfork_child(void) CL_HIDDEN;
/* the recording is on: NCCL calls may be recorded */
void cl_nccl_enable(void) CL_HIDDEN;
int cl_nccl_enabled(void) CL_HIDDEN;
/* The C library's dlopen and dlsym (dlreal.c): every dlsym the shim makes
 * for itself goes through these, never through its own wrapper (which looks
 * for NCCL and CUDA, taking a lock: not in a signal handler, not under the
 * shim's locks; tests/capture/own_dlsym.test). */
void cl_dl_bind_real(void) CL_HIDDEN;
void *cl_dl_open_real(const char *file, int mode) CL_HIDDEN;
void *cl_dl_sym_real(void *handle, const char *name) CL_HIDDEN;
/* The wrappers of nccl.def (nccl.c): for each name its wrapper and the
 * slot of its real function; cl_nccl_count of them. */
struct cl_nccl_fn {
  const char *name;
  void *wrapper;
  void *_Atomic *real;
};
extern const struct cl_nccl_fn cl_nccl_fns[] CL_HIDDEN;
extern const unsigned cl_nccl_count CL_HIDDEN;
/* the kind of NCCL row I (nccl.def): "all-reduce"..., NULL for a
 * communicator's creation or destruction */
const char *cl_nccl_kind(unsigned i) CL_HIDDEN;
/* Patch the GOT entries of the loaded objects (not yet looked at) that
 * import a function of cl_nccl_fns bound to (or lazily bound to) the
 * NCCL library NCCL_BASE..NCCL_END; returns the number of entries patched. */
int cl_got_patch(uintptr_t nccl_start, uintptr_t nccl_end) CL_HIDDEN;

/* ---- the API table (decode.c), generated from api.def ---------------------- */
struct cl_api {
  const char *name;       /* e.g. "cudaMemcpyAsync_v3020" */
  int domain;             /* CUpti_CallbackDomain */
  unsigned cbid;
  enum cl_op op;
  unsigned flags;         /* CL_ASYNC, CL_PTSZ */
  void (*decode)(const void *params, struct cl_args *a);
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

/* sim_driver.h - TEST DOUBLE: private state of the simulated libcuda.so.1
 * (contexts, streams, events) and the macro that wraps each public driver
 * function in DRIVER-domain ENTER/EXIT callbacks.  Only the sim_driver_*.c
 * files include it.
 */
#ifndef CUDALENS_SIM_DRIVER_H
#define CUDALENS_SIM_DRIVER_H

#include <pthread.h>
#include "sim_internal.h"

struct sim_stream;
struct sim_graph;
struct sim_gnode;
struct sim_capture;

struct sim_ctx {                     /* a CUcontext */
    uint32_t magic;
    int device;                      /* ordinal as the process sees it */
    uint32_t uid;                    /* CUPTI context id */
    int primary;
    int active;                      /* not destroyed or reset */
    int refs, rt_ref;                /* primary: retains (the runtime's: one) */
    struct sim_stream *legacy;       /* the NULL stream */
    uint8_t peer[CLSIM_MAX_DEVICES]; /* peer access enabled to device i */
    struct sim_ctx *next;
};

struct sim_stream {                  /* a CUstream */
    uint32_t magic;
    struct sim_ctx *ctx;
    uint32_t id;                     /* CUPTI stream id */
    unsigned flags;                  /* CU_STREAM_NON_BLOCKING */
    int priority;
    int legacy, per_thread;
    uint64_t tail;                   /* simulated GPU time the last work ends */
    struct sim_capture *cap;         /* the stream capture it is part of */
    struct sim_gnode **deps;         /* ... and its capture dependencies */
    size_t ndeps, capdeps;
    uint64_t hf_enq, hf_done;        /* host functions enqueued, finished
                                      * (under the host-function lock) */
    struct sim_stream *next;
};

struct sim_event {                   /* a CUevent */
    uint32_t magic;
    unsigned flags;
    int recorded;
    uint64_t ts;                     /* GPU time of the recorded point */
    struct sim_stream *hf_stream;    /* recorded on it after hf_mark of its */
    uint64_t hf_mark;                /* host functions were enqueued */
    struct sim_ctx *ctx;
    struct sim_capture *cap;         /* recorded in a capture: its nodes */
    struct sim_gnode **deps;
    size_t ndeps;
};

/* ---- graphs (sim_driver_graph.c) ---------------------------------------- */
#define CLSIM_MAGIC_GRAPH 0x47525048u  /* GRPH */
#define CLSIM_MAGIC_GNODE 0x474e4f44u  /* GNOD */
#define CLSIM_MAGIC_GEXEC 0x47455843u  /* GEXC */
#define CLSIM_MAX_KPARAMS 32

struct sim_gnode {                   /* a CUgraphNode */
    uint32_t magic;
    CUgraphNodeType type;
    struct sim_graph *graph;
    CUDA_KERNEL_NODE_PARAMS k;       /* kernel: kernelParams point below */
    void *kargv[CLSIM_MAX_KPARAMS];
    unsigned char *kargbuf;
    CUDA_MEMCPY3D m;
    CUDA_MEMSET_NODE_PARAMS ms;
    CUhostFn fn;
    void *ud;
    struct sim_graph *child;
    CUevent event;
    struct sim_gnode *orig;          /* an exec's copy: the graph's node */
};

struct sim_graph {                   /* a CUgraph */
    uint32_t magic;
    struct sim_gnode **nodes;
    size_t n, cap;
    struct sim_gnode **from, **to;   /* edges */
    size_t ne, cape;
};

struct sim_capture {                 /* one stream capture */
    struct sim_graph *graph;
    uint64_t id;
    int ended;
};

/* the node work captured on S adds to its capture (deps: S's, then the
 * node); NULL when S is not capturing */
struct sim_gnode *drv_capture_node(struct sim_stream *s, CUgraphNodeType type);
/* a new node of graph G after DEPS (no callbacks) */
struct sim_gnode *drv_graph_node(struct sim_graph *g, CUgraphNodeType type,
                                 const CUgraphNode *deps, size_t ndeps);
void drv_kernel_node_args(struct sim_gnode *n, struct clsim_func *fn, void **params);
/* the work itself, without API callbacks (sim_driver_memory.c,
 * sim_driver_module.c), for graph launches */
CUresult drv_copy(void *dst, const void *src, size_t n, int want, CUstream h, int async);
CUresult drv_memset(CUdeviceptr dst, unsigned value, size_t elsize, size_t n, CUstream h,
                    int async);
CUresult drv_kernel(struct clsim_func *fn, unsigned gx, unsigned gy, unsigned gz,
                    unsigned bx, unsigned by, unsigned bz, unsigned sharedMem,
                    struct sim_stream *s);
struct clsim_func *drv_func_of(void *f);  /* a CUfunction or CUkernel */
/* an event recorded on capturing stream S takes S's capture dependencies;
 * a stream waiting for such an event joins the capture after them (1) */
void drv_capture_record(struct sim_event *e, struct sim_stream *s);
int drv_capture_wait(struct sim_stream *s, struct sim_event *e);

extern pthread_mutex_t clsimdrv_lock;     /* guards every list below */
extern struct sim_ctx *clsimdrv_ctxs;
extern struct sim_stream *clsimdrv_streams;
extern int clsimdrv_initialized;

/* sim_driver_device.c */
struct sim_ctx *drv_ctx(void);                 /* current context or NULL */
struct sim_ctx *drv_ctx_check(CUcontext c);    /* validated handle or NULL */
void drv_set_ctx(struct sim_ctx *c);
struct sim_ctx *drv_ctx_new(int device, int primary);
void drv_ctx_destroy(struct sim_ctx *c);
int drv_device_ok(int device);

/* sim_driver_stream.c */
struct sim_stream *drv_stream_new(struct sim_ctx *c, unsigned flags, int priority,
                                  int legacy, int per_thread);
/* resolves a handle (NULL, legacy, per-thread, or created) in the current
 * context; NULL if invalid */
struct sim_stream *drv_stream(CUstream h);
/* places work of duration dur on the stream's simulated timeline */
void drv_schedule(struct sim_stream *s, uint64_t dur, uint64_t *start, uint64_t *end);
void drv_wait_until(uint64_t t);               /* host waits for GPU time t */
/* host functions (sim_driver_stream.c): wait until those enqueued on S so
 * far (S NULL: all) have returned */
void drv_hostfn_wait(struct sim_stream *s);
uint64_t drv_ctx_tail(struct sim_ctx *c);      /* when all work of c ends */

/* sim_driver_memory.c: the registry of memory ranges */
void drv_mem_add(uintptr_t base, size_t size, int device);  /* device memory */
size_t drv_mem_remove_within(uintptr_t base, size_t size);  /* ranges starting there */
void *drv_mem_pool(uintptr_t p);                            /* its pool or NULL */

/* sim_driver_vmm.c: memory pools */
void *drv_default_pool(int device);
int drv_pool_device(CUmemoryPool pool);                     /* -1: not a pool */

#define DRV_ENTER(name, symbol, ...)                                              \
    name##_params drv_p_ = { __VA_ARGS__ };                                       \
    DRV_ENTER_P(name, &drv_p_, symbol)

#define DRV_ENTER_P(name, params, symbol)                                         \
    CUresult drv_r_ = CUDA_SUCCESS;                                               \
    struct clsim_api drv_a_;                                                      \
    CUcontext drv_c_ = clsimdrv_current_ctx();                                    \
    clsim_api_enter(&drv_a_, CUPTI_CB_DOMAIN_DRIVER_API,                          \
                    CUPTI_DRIVER_TRACE_CBID_##name, #name, params, &drv_r_,       \
                    symbol, drv_c_, clsimdrv_ctx_uid(drv_c_))

#define DRV_RETURN(expr)                                                          \
    do {                                                                          \
        drv_r_ = (expr);                                                          \
        drv_a_.cb.context = clsimdrv_current_ctx();                               \
        drv_a_.cb.contextUid = clsimdrv_ctx_uid(drv_a_.cb.context);               \
        clsim_api_exit(&drv_a_);                                                  \
        return drv_r_;                                                            \
    } while (0)

#endif

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
};

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

/* sim_internal.h - TEST DOUBLE.  The private interface between the three
 * libraries of the simulated CUDA stack used by cudalens' CI (never
 * installed):
 *
 *   libcupti.so.13  callback raising, correlation ids, activity buffers
 *                   (clsim_* below, exported for the other two)
 *   libcuda.so.1    the simulated "GPU": devices, contexts, memory, streams,
 *                   events, modules (clsimdrv_* below, exported for cudart)
 *   libcudart.so.13 thin runtime layer over the driver, like the real one
 *
 * Nothing here is CUDA or CUPTI API; the structs of the public APIs are the
 * real ones from the toolkit headers.
 */
#ifndef CUDALENS_SIM_INTERNAL_H
#define CUDALENS_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#define CLSIM_EXPORT __attribute__((visibility("default")))

/* ---- libcupti: raising callbacks ---------------------------------------- */

/* One API call in flight (lives on the caller's stack). */
struct clsim_api {
    CUpti_CallbackData cb;
    uint64_t corrdata;
    CUpti_CallbackDomain domain;
    CUpti_CallbackId cbid;
    int outermost;  /* first API call on this thread's stack */
};

/* Starts an API call: assigns the correlation id, raises ENTER if enabled.
 * retval points at the CUresult / cudaError_t the call will return. */
CLSIM_EXPORT void clsim_api_enter(struct clsim_api *a, CUpti_CallbackDomain domain,
                                  CUpti_CallbackId cbid, const char *name,
                                  const void *params, void *retval,
                                  const char *symbol, CUcontext ctx, uint32_t ctxuid);
/* Ends it: raises EXIT if enabled (a->cb.context may be updated first). */
CLSIM_EXPORT void clsim_api_exit(struct clsim_api *a);
/* Raises a resource or synchronize callback (data: CUpti_ResourceData /
 * CUpti_SynchronizeData) if enabled. */
CLSIM_EXPORT void clsim_raise(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                              const void *data);
/* Correlation id that GPU work issued now belongs to: the outermost API call
 * on this thread (the runtime call for runtime calls, else the driver call). */
CLSIM_EXPORT uint32_t clsim_work_correlation(void);
/* The clock shared with cuptiGetTimestamp (CLOCK_REALTIME, ns). */
CLSIM_EXPORT uint64_t clsim_now(void);

/* ---- libcupti: activity records ----------------------------------------- */
CLSIM_EXPORT int clsim_activity_wanted(CUpti_ActivityKind kind);
CLSIM_EXPORT void clsim_activity_add(const void *record, size_t size);
CLSIM_EXPORT void clsim_activity_flush(void);

/* ---- libcuda: objects shared with the runtime --------------------------- */

#define CLSIM_MAX_DEVICES 16
#define CLSIM_MAGIC_CTX    0x43545831u  /* CTX1 */
#define CLSIM_MAGIC_STREAM 0x5354524du  /* STRM */
#define CLSIM_MAGIC_EVENT  0x45564e54u  /* EVNT */
#define CLSIM_MAGIC_FUNC   0x46554e43u  /* FUNC */
#define CLSIM_MAGIC_KERNEL 0x4b45524eu  /* KERN */
#define CLSIM_MAGIC_MODULE 0x4d4f444cu  /* MODL */

struct clsim_param { uint32_t offset, size; };

struct clsim_func;
/* A cudaKernel_t / CUkernel handle: a distinct address from the CUfunction */
struct clsim_kernel { uint32_t magic; struct clsim_func *func; };

struct clsim_func {                 /* a CUfunction */
    uint32_t magic;
    char *name;                     /* mangled */
    int nparams;                    /* -1: unknown (no cubin found) */
    struct clsim_param *params;
    uint32_t param_bytes;
    struct clsim_module *module;
    struct clsim_kernel kernel;
    struct clsim_func *next;
};

struct clsim_module {               /* a CUmodule */
    uint32_t magic;
    struct clsim_func *funcs;
};

/* ---- libcuda: functions for the runtime (no callbacks, except the
 * resource callback when a primary context is created) ------------------- */
CLSIM_EXPORT int clsimdrv_device_count(void);
/* Makes device's primary context current on this thread (creating it). */
CLSIM_EXPORT CUresult clsimdrv_use_device(int device, CUcontext *ctx);
CLSIM_EXPORT CUcontext clsimdrv_current_ctx(void);
CLSIM_EXPORT uint32_t clsimdrv_ctx_uid(CUcontext ctx);      /* 0: not a context */
CLSIM_EXPORT int clsimdrv_ctx_device(CUcontext ctx);        /* NULL: current; -1: bad */
/* stream id as CUPTI reports it; resolves NULL/legacy/per-thread handles;
 * ctx NULL: the stream's own (or the current) context; 0: bad handle */
CLSIM_EXPORT uint32_t clsimdrv_stream_id(CUcontext ctx, CUstream s, int per_thread);
CLSIM_EXPORT CUcontext clsimdrv_primary_ctx(int device);  /* NULL if none */
CLSIM_EXPORT CUresult clsimdrv_primary_reset(int device);
/* memory kind (CUpti_ActivityMemoryKind), device; 0 if not a sim range */
CLSIM_EXPORT int clsimdrv_ptr_info(const void *p, int *memkind, int *device,
                                   void **base, size_t *size, int *registered);
/* parses a fatbin (or cubin) image into a module, no callbacks */
CLSIM_EXPORT struct clsim_module *clsimdrv_module_load(const void *image);
/* function by mangled name; creates one with unknown params if absent */
CLSIM_EXPORT struct clsim_func *clsimdrv_module_func(struct clsim_module *m,
                                                     const char *name, int create);
/* device properties for cudaGetDeviceProperties */
CLSIM_EXPORT CUresult clsimdrv_device_name(int device, char *buf, size_t len);
CLSIM_EXPORT CUresult clsimdrv_device_uuid(int device, CUuuid *uuid);
CLSIM_EXPORT int clsimdrv_device_pci_bus(int device);
CLSIM_EXPORT size_t clsimdrv_device_mem(int device);
/* Knob CUDALENS_SIM_QUERY_NOT_READY: true while queries must say not ready */
CLSIM_EXPORT int clsimdrv_query_not_ready(void);

/* ---- libcuda: fatbin parsing (sim_fatbin.c) ----------------------------- */
struct clsim_module *clsim_fatbin_parse(const void *image);
/* gives the functions of unloaded module M to the next loads (handles reused) */
void clsimdrv_module_release(struct clsim_module *m);

#endif

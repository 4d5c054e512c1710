/* kparams.h - kernel parameters and the allocation map (kparams.c). */
#ifndef CUDALENS_SHIM_KPARAMS_H
#define CUDALENS_SHIM_KPARAMS_H

#include "shim.h"

/* DEVICE: the device whose memory [start, start+size) is, -1 for host
 * memory */
void cl_allocmap_add(uint64_t start, uint64_t size, int kind, uint32_t flags,
                     int32_t device) CL_HIDDEN;
void cl_allocmap_remove(uint64_t start) CL_HIDDEN;
/* Ends the mappings (cuMemUnmap) that start in [start, start + size). */
void cl_allocmap_remove_range(uint64_t start, uint64_t size) CL_HIDDEN;
/* The kind (enum cl_memkind) of the live allocation holding all of
 * [addr, addr+bytes), or CL_MEMKIND_UNKNOWN (pageable or not ours). */
int cl_allocmap_kind(uint64_t addr, uint64_t bytes) CL_HIDDEN;
/* The live allocation containing addr: 1 and its range, or 0. */
int cl_allocmap_find(uint64_t addr, uint64_t *start, uint64_t *end) CL_HIDDEN;
/* The device whose memory the live allocation containing addr is; -1 for
 * host memory or memory not ours. */
int32_t cl_allocmap_device(uint64_t addr) CL_HIDDEN;
/* cl_allocmap_kind(addr, bytes), and cl_allocmap_device(addr) in *device,
 * from one reading of the map (a copy asks both of each side) */
int cl_allocmap_kind_device(uint64_t addr, uint64_t bytes, int32_t *device)
    CL_HIDDEN;
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
/* A launch's scan (cl_kparams_scan): where its words go, and what it kept.
 * The caller sets KARGS, CAP, N (0) and TRUNCATED (0). */
struct cl_kscan {
  struct cl_karg *kargs;  /* room for CAP words */
  uint16_t cap, n;
  uint8_t truncated;      /* a word past the CAP-th was not kept */
  uint8_t deferred;       /* left for the writer to resolve, as of map
                           * generation GEN, among host code CODE: the
                           * thread's ring holds GEN until the record's
                           * commit, then cl_ring_release */
  uint64_t gen;
  const struct cl_hostcode *code;
};
/* Scan a launch's parameters for words pointing into live allocations,
 * into S: resolved now, or, with DEFER, where it can, left for the writer
 * (S->deferred). */
void cl_kparams_scan(void *func, void **params, struct cl_kscan *s,
                     int defer) CL_HIDDEN;
/* The same of a launch that passes its parameters in one buffer of BYTES
 * (cuLaunchKernel's extra: CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE), each
 * where the kernel's layout puts it */
void cl_kparams_scan_buffer(void *func, const void *buf, size_t bytes,
                            struct cl_kscan *s, int defer) CL_HIDDEN;
/* that buffer and its size in a launch's EXTRA (CUDA Driver API,
 * cuLaunchKernel): 1, or 0 when it names none */
int cl_kparams_extra(void **extra, const void **buf, size_t *bytes) CL_HIDDEN;
/* (the writer) the N words at KARGS that a scan deferred, resolved as of
 * generation GEN among host code CODE: what the scan would have kept then,
 * in order, and marked; how many */
unsigned cl_kparams_resolve(struct cl_karg *kargs, unsigned n, uint64_t gen,
                            const struct cl_hostcode *code) CL_HIDDEN;
/* the map's generation now */
uint64_t cl_kparams_gen(void) CL_HIDDEN;
/* (the writer) no launch left to resolve was scanned before generation
 * BELOW: the ranges removed by then are forgotten */
void cl_kparams_prune(uint64_t below) CL_HIDDEN;
/* removed ranges that could not be kept for the writer (no memory), since
 * the last call: a word of a launch into one was not kept */
uint64_t cl_kparams_take_unburied(void) CL_HIDDEN;
/* how many removed ranges are kept for the writer (for the unit test) */
size_t cl_kparams_dead(void) CL_HIDDEN;
/* whether the scan skips words four at a time (AVX2): -1 until the first
 * scan asks the processor; a test sets 0 to compare with word by word */
extern int cl_kparams_vector CL_HIDDEN;
/* a module is being unloaded: its CUfunction handles may be reused, so the
 * parameter layouts read so far are read again at their next launch */
void cl_kparams_module_unloading(void) CL_HIDDEN;
void cl_kparams_atfork_prepare(void) CL_HIDDEN;
void cl_kparams_atfork_parent(void) CL_HIDDEN;
void cl_kparams_atfork_child(void) CL_HIDDEN;

#endif

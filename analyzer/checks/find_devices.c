/* find_devices.c - findings about devices:
 *
 *   cross-device-access (error)  a kernel or memset running on device A
 *       whose pointer (kernel_args, transfers.dst) lies in device memory
 *       of device B (memory.device) that A may not reach; and a
 *       device-to-device copy through a non-peer API (cudaMemcpy*, not
 *       cudaMemcpyPeer*) between the memory of two devices neither of which
 *       may reach the other's.  Who may reach what depends on the memory:
 *         - cudaMalloc'd memory (and memory opened through IPC): peer
 *           access from A to B (device_ops peer-enable rows: device = A,
 *           peer = B; peer-disable and reset-device undo it; opening IPC
 *           memory of another device may enable it, [API]
 *           cudaIpcOpenMemHandle: "cudaIpcOpenMemHandle can attempt to
 *           enable peer access between the devices as if the user called
 *           cudaDeviceEnablePeerAccess", so an IPC open counts as one);
 *         - pool memory (cudaMallocAsync, cudaMallocFromPoolAsync): the
 *           pool's access descriptors, not peer access ([GUIDE] Stream
 *           Ordered Memory Allocator, "Device Accessibility for Multi-GPU
 *           Support": "memory pool allocation accessibility does not follow
 *           cudaDeviceEnablePeerAccess or cuCtxEnablePeerAccess. Instead,
 *           the cudaMemPoolSetAccess API modifies what devices can access
 *           allocations from a pool. By default, allocations are accessible
 *           from the device where the allocations are located.");
 *         - mapped memory (cuMemMap): the access cuMemSetAccess gave the
 *           mapping ([API] cuMemMap: "calling cuMemMap does not make the
 *           address accessible, the caller needs to update accessibility of
 *           a contiguous mapped VA range by calling cuMemSetAccess";
 *           cuMemUnmap: "all mappings start with no accessibility setup");
 *           the device of the physical memory itself is not checked (a
 *           missing grant there is no cross-device access).
 *       The rules are section 4 of include/cudalens/ops.def (which quotes
 *       the documentation above); the rights, the memory model's
 *       (memmodel_can_access, from mem_access and alloc_handles).  Grouped per call site and device
 *       pair, with the allocation's call site as related location.
 *       Managed and host memory are reachable from every device and never
 *       reported.
 *   stray-context (warning)  a context created on a device where the
 *       process did no work (no kernels, copies, memsets, graph launches,
 *       host functions, prefetches, no device allocations, no GPU
 *       activity, not the peer of an enabled peer access) while it did
 *       work on another device: every rank of a multi-process job
 *       touching device 0 before selecting its own.  Located at the first
 *       call on that device after the context was created.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/analyses.h"
#include "checks/find_common.h"
#include "cudalens/format.h"
#include "cudalens/semantics.h"
#include "model/replay.h"
#include "model/calls.h"
#include "model/names.h"
#include "util.h"

#define MAXDEV 64

struct xpass {
  struct report_ctx *ctx;
  struct sites sites;
  struct groups gs;
  bool peer[MAXDEV][MAXDEV]; /* [A][B]: A may access B's memory */
  bool peer_any[MAXDEV];     /* A enabled access to an unknown peer */
};

static bool dev_ok(int64_t d) { return d >= 0 && d < MAXDEV; }

static bool can_access(const struct xpass *p, int64_t a, int64_t b)
{
  if (!dev_ok(a) || !dev_ok(b))
    return true; /* unknown: do not guess */
  return a == b || p->peer[a][b] || p->peer_any[a];
}

/* may device DEV reach allocation AL?  (the rules of the comment above) */
static bool reaches(const struct xpass *p, const struct memmodel *mm,
                    int64_t dev, const struct alloc *al)
{
  if (!memkind_on_device(al->kind) || al->kind == CL_MEMKIND_MANAGED)
    return true;
  if (!dev_ok(dev) || !dev_ok(al->device))
    return true; /* unknown: do not guess */
  int own = memmodel_can_access(mm, al, dev);
  if (own >= 0)
    return own != 0;
  return can_access(p, dev, al->device);
}

/* tags: what touched the memory */
enum { X_KERNEL = 0, X_MEMSET = 1, X_COPY = 2 };

static void hit(struct xpass *p, size_t site, int what, int64_t seq,
                int64_t dev, const struct alloc *a, const struct call_act *ca,
                const char *label)
{
  uint32_t tag = (uint32_t)(a->kind & 0xff) << 24 | (uint32_t)what << 16 |
                 (uint32_t)(dev & 0xff) << 8 | (uint32_t)(a->device & 0xff);
  struct group *g = groups_get(&p->gs, site, tag, seq);
  g->count++;
  g->gpu_ns = sat_add(g->gpu_ns, ca->gpu_ns);
  g->dev_a = dev;
  g->dev_b = a->device;
  if (!g->text) {
    g->text = xstrdup(label);
    g->bytes = (int64_t)a->size;
    g->count2 = a->seq; /* the allocating call */
    g->timed_bytes = (int64_t)a->address;
  }
}

static char *kernel_label(struct cl_db *d, int64_t name)
{
  const char *r = name >= 0 ? names_kernel(d, name).demangled : NULL;
  return xstrdup(r ? r : "(unknown kernel)");
}

static void device_op(struct xpass *p, const char *op, const char *api,
                      int64_t dev, bool has_peer, int64_t peer)
{
  if (!op || !dev_ok(dev))
    return;
  if (strcmp(op, "reset-device") == 0) {
    memset(p->peer[dev], 0, sizeof p->peer[dev]);
    p->peer_any[dev] = false;
    return;
  }
  bool enable = strcmp(op, "peer-enable") == 0;
  if (!enable && strcmp(op, "peer-disable") != 0)
    return;
  /* the driver's cuCtxEnablePeerAccess names a context, not a device */
  if (!has_peer || !dev_ok(peer) || (api && strncmp(api, "cuCtx", 5) == 0)) {
    if (enable)
      p->peer_any[dev] = true;
    return;
  }
  p->peer[dev][peer] = enable;
}

static void scan_access(struct xpass *p)
{
  struct cl_db *d = p->ctx->db;
  struct replay r;
  replay_begin(&r, p->ctx->db, p->ctx->act);
  const struct memmodel *mm = &r.mm;
  /* an IPC open: its memory's device is known once the model has it */
  uint64_t ipc_addr = 0;
  int64_t ipc_dev = -1;
  while (replay_next(&r)) {
    const struct replay_op *o = &r.op;
    int64_t seq = o->seq;
    if (ipc_addr) {
      const struct alloc *a = memmodel_find(mm, ipc_addr);
      if (a && dev_ok(ipc_dev) && dev_ok(a->device))
        p->peer[ipc_dev][a->device] = true;
      ipc_addr = 0;
    }
    if (o->result != 0)
      continue;
    if (o->mem && !o->mem_free && o->api &&
        (strncmp(o->api, "cudaIpcOpenMemHandle", 20) == 0 ||
         strncmp(o->api, "cuIpcOpenMemHandle", 18) == 0)) {
      ipc_addr = o->mem_addr;
      ipc_dev = o->device;
    }
    if (o->dev_op) {
      device_op(p, o->dev_op, o->api,
                o->dev_op_device >= 0 ? o->dev_op_device : o->device,
                o->has_peer, o->peer);
      continue;
    }
    if (o->op < 0 || o->device < 0)
      continue;
    int64_t dev = o->device;
    bool kernel = o->op == CL_OP_KERNEL, memset_ = o->op == CL_OP_MEMSET,
         copy = o->op == CL_OP_COPY;
    if (!kernel && !memset_ && !copy)
      continue;
    const struct alloc *bad = NULL;
    struct alloc other = {0};
    if (kernel) {
      for (size_t i = 0; !bad && i < o->nargs; i++) {
        const struct alloc *a = memmodel_find(mm, o->args[i].value);
        if (a && !reaches(p, mm, dev, a))
          bad = a;
      }
    } else if (memset_) {
      const struct alloc *a = memmodel_find(mm, o->dst);
      if (a && !reaches(p, mm, dev, a))
        bad = a;
    } else {
      if (o->transfer && o->dir_recorded == CL_DIR_PEER)
        continue;
      const struct alloc *s = memmodel_find(mm, o->src);
      const struct alloc *t = memmodel_find(mm, o->dst);
      if (s && t && memkind_on_device(s->kind) && memkind_on_device(t->kind) &&
          s->kind != CL_MEMKIND_MANAGED && t->kind != CL_MEMKIND_MANAGED &&
          s->device != t->device && !reaches(p, mm, s->device, t) &&
          !reaches(p, mm, t->device, s)) {
        /* report the side that is not on the calling device */
        other = s->device != dev ? *s : *t;
        bad = &other;
      }
    }
    if (!bad)
      continue;
    struct call_act ca;
    replay_activity(&r, &ca);
    size_t site = sites_of(&p->sites, o->stack, o->pystack);
    char label[512];
    if (kernel) {
      char *k = kernel_label(d, o->kname >= 0 ? o->kname : ca.name);
      snprintf(label, sizeof label, "kernel %s", k);
      free(k);
    } else {
      char api[96];
      snprintf(label, sizeof label, "%s",
               callsite_user_api(p->ctx->cs, o->stack, o->api, api,
                                 sizeof api));
    }
    hit(p, site, kernel ? X_KERNEL : memset_ ? X_MEMSET : X_COPY, seq, dev,
        bad, &ca, label);
  }
  replay_end(&r);
}

static void report_access(struct xpass *p, struct findings *out)
{
  char b1[32], b2[32];
  for (size_t i = 0; i < p->gs.n; i++) {
    const struct group *g = &p->gs.v[i];
    const struct site *s = &p->sites.v[g->site];
    int what = (int)(g->tag >> 16 & 0xff), kind = (int)(g->tag >> 24);
    /* what would have given the access, by the kind of memory */
    const char *right = cl_access_right((enum cl_memkind)kind);
    if (!right)
      right = "peer access to it";
    const char *mem = kind == CL_MEMKIND_MAPPED ? "mapped memory"
                      : kind == CL_MEMKIND_DEVICE_ASYNC ? "pool memory"
                                                        : "memory";
    struct finding *f;
    if (what == X_COPY)
      f = findings_add(out, CHECK_CROSS_DEVICE_ACCESS, &s->loc,
                       "%s on device %" PRId64 " copies between devices %"
                       PRId64 " and %" PRId64 ", which have no %s",
                       g->text, g->dev_a, g->dev_a, g->dev_b,
                       kind == CL_MEMKIND_MAPPED || kind == CL_MEMKIND_DEVICE_ASYNC
                           ? "access to each other's memory"
                           : "peer access");
    else
      f = findings_add(out, CHECK_CROSS_DEVICE_ACCESS, &s->loc,
                       "%s on device %" PRId64 " uses %s of device %"
                       PRId64 " without %s",
                       g->text, g->dev_a, mem, g->dev_b, right);
    /* the rule, quoted, where it is not the familiar peer access */
    if (kind == CL_MEMKIND_MAPPED || kind == CL_MEMKIND_DEVICE_ASYNC)
      finding_add_detail(f, NULL, "%s",
                         cl_access_doc((enum cl_memkind)kind));
    if (what == X_KERNEL && strncmp(g->text, "kernel ", 7) == 0)
      finding_add_kernel(f, g->text + 7);
    f->count = (uint64_t)g->count;
    finding_add_op(f, g->first_seq); /* the first occurrence */
    f->cost_ns = g->gpu_ns;
    finding_set_extra(f, "device", g->dev_a);
    finding_set_extra(f, "memory_device", g->dev_b);
    finding_set_extra(f, "gpu_ns", g->gpu_ns);
    int64_t stack, pystack;
    call_stacks(p->ctx->db, g->count2, &stack, &pystack);
    size_t asite = sites_of(&p->sites, stack, pystack);
    finding_add_related(f, &p->sites.v[asite].loc,
                        kind == CL_MEMKIND_MAPPED
                            ? "the memory was mapped here (cuMemMap), device"
                              " %" PRId64 "'s physical memory: %s at %s"
                            : "the memory was allocated here, on device %"
                              PRId64 ": a %s block at %s",
                        g->dev_b, fmt_bytes(b1, sizeof b1, g->bytes),
                        fmt_hex(b2, sizeof b2, g->timed_bytes));
    if (kind == CL_MEMKIND_MAPPED)
      finding_set_fix(f, "grant device %" PRId64 " access to the mapped range"
                         " (cuMemSetAccess with a CUmemAccessDesc for"
                         " location CU_MEM_LOCATION_TYPE_DEVICE, id %" PRId64
                         "); peer access (cudaDeviceEnablePeerAccess) does"
                         " not apply to mapped memory",
                      g->dev_a, g->dev_a);
    else if (kind == CL_MEMKIND_DEVICE_ASYNC)
      finding_set_fix(f, "grant device %" PRId64 " access to the pool the"
                         " memory came from (cudaMemPoolSetAccess with a"
                         " cudaMemAccessDesc for device %" PRId64 "); peer"
                         " access (cudaDeviceEnablePeerAccess) does not apply"
                         " to pool memory",
                      g->dev_a, g->dev_a);
    else
      finding_set_fix(f, "enable peer access first (cudaSetDevice(%" PRId64
                         "); cudaDeviceEnablePeerAccess(%" PRId64 ", 0))"
                         " where cudaDeviceCanAccessPeer allows it, or copy"
                         " the data to device %" PRId64
                         " (cudaMemcpyPeerAsync; PyTorch: .to(device))",
                      g->dev_a, g->dev_b, g->dev_a);
  }
}

static void report_stray(struct report_ctx *ctx, struct sites *sites,
                         struct findings *out)
{
  struct cl_db *d = ctx->db;
  bool used[MAXDEV] = {false}, any_used = false;
  /* the devices that ran stream work (cl_op_is_stream_task), that hold
   * device memory or took part in copies or peer access: the calls and the
   * activity were read already */
  const struct calls_facts *f = calls_facts(d);
  for (size_t i = 0; i < f->ntask_devices; i++)
    if (dev_ok(f->task_devices[i]))
      used[f->task_devices[i]] = any_used = true;
  for (size_t i = 0; i < ctx->act->ndevices; i++)
    if (dev_ok(ctx->act->devices[i]))
      used[ctx->act->devices[i]] = any_used = true;
  size_t nmem;
  int64_t *mem = devices_with_memory(d, &nmem);
  for (size_t i = 0; i < nmem; i++)
    if (dev_ok(mem[i]))
      used[mem[i]] = any_used = true;
  free(mem);
  if (!any_used)
    return; /* no work anywhere: nothing to compare with */

  size_t nctx;
  struct device_contexts *ctxs = contexts_by_device(d, &nctx);
  for (size_t c = 0; c < nctx; c++) {
    int64_t dev = ctxs[c].device;
    if (!dev_ok(dev) || used[dev])
      continue;
    struct location loc = {0};
    char api[96] = "a CUDA call";
    struct call_info first;
    for (int any = 0; any < 2; any++)
      if (call_first_after(d, ctxs[c].created, dev, any, &first)) {
        size_t site = sites_of(sites, first.stack, first.pystack);
        loc = sites->v[site].loc;
        callsite_user_api(ctx->cs, first.stack, first.api, api, sizeof api);
        break;
      }
    struct finding *f = findings_add(
        out, CHECK_STRAY_CONTEXT, &loc,
        "%s created a CUDA context on device %" PRId64 ", where the process"
        " does no work", api, dev);
    f->count = (uint64_t)ctxs[c].count;
    finding_set_extra(f, "device", dev);
    finding_set_fix(f, "select the device first (cudaSetDevice(rank) before"
                       " any other CUDA call; PyTorch: torch.cuda.set_device("
                       "local_rank) first), or set CUDA_VISIBLE_DEVICES per"
                       " process");
  }
  free(ctxs);
}

void analysis_devices(struct report_ctx *ctx, struct findings *out)
{
  struct xpass *p = xcalloc(1, sizeof *p);
  p->ctx = ctx;
  sites_init(&p->sites, ctx->cs);
  groups_init(&p->gs);
  scan_access(p);
  report_access(p, out);
  report_stray(ctx, &p->sites, out);
  groups_free(&p->gs);
  sites_free(&p->sites);
  free(p);
}

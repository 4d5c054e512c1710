/* find_host.c - host-read-before-sync, host-write-before-sync and
 * pinned-free-before-sync: the host touching (or freeing) pinned or managed
 * memory while an async copy or memset on it, or a kernel given a pointer
 * into it, was still in flight, as caught by the shim's page protection
 * (host_accesses; copy_seq is the copy's, memset's or kernel's call).  One
 * finding per pair of call sites (the host access and the device work),
 * with a count.  The device work's stream is named as in every finding
 * (stream_title). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/analyses.h"
#include "checks/find_common.h"
#include "cudalens/format.h"
#include "model/host_accesses.h"
#include "model/names.h"
#include "model/streams.h"
#include "sites/demangle.h"
#include "util.h"

struct pair {
  enum check_id check;
  int64_t access_stack, access_pystack, copy_seq, address, bytes;
  size_t stream;      /* the device work's stream instance (streams.h) */
  int64_t access_seq; /* the host access's own seq (the timeline's mark) */
  char direction[16];
  char memkind[16];   /* of the allocation accessed: pinned, managed, ... */
  int is_kernel, is_memset;
  int64_t param;      /* the kernel argument into the memory, -1: unknown */
  char *kernel;       /* its demangled name, without parameters */
  uint64_t count;
  char *kernel_sig;   /* the kernel demangled with its parameters, for
                         suppressions (kernel=GLOB) */
  char api[64];       /* the device work's API as recorded */
};

static enum check_id finding_check(const char *access)
{
  if (!strcmp(access, "read"))
    return CHECK_HOST_READ_BEFORE_SYNC;
  if (!strcmp(access, "write"))
    return CHECK_HOST_WRITE_BEFORE_SYNC;
  return CHECK_PINNED_FREE_BEFORE_SYNC;
}

static void emit(struct report_ctx *ctx, struct findings *out,
                 const struct streams *ss, const struct pair *p)
{
  struct callsite at, copy;
  callsite_resolve_ids(ctx->cs, p->access_stack, p->access_pystack, &at);
  callsite_resolve_call(ctx->cs, p->copy_seq, &copy);
  struct location loc = callsite_location(&at);
  struct location copy_loc = callsite_location(&copy);
  const char *dir = !strcmp(p->direction, "dtoh")   ? "device-to-host"
                    : !strcmp(p->direction, "htod") ? "host-to-device"
                    : !strcmp(p->direction, "dtod") ? "device-to-device"
                                                    : p->direction;
  const char *what = p->check == CHECK_HOST_READ_BEFORE_SYNC    ? "the host reads"
                     : p->check == CHECK_HOST_WRITE_BEFORE_SYNC ? "the host writes"
                                                                : "the host frees";
  const char *mem = !strcmp(p->memkind, "managed") ? "managed" : "pinned";
  char *stream = stream_title(ctx->db, ctx->cs, ss, p->stream);
  char sb[96], b1[32], api[96];
  stream_brief(sb, sizeof sb, stream);
  callsite_user_api(ctx->cs, copy.stack_id, p->api, api, sizeof api);
  struct finding *f;
  /* the first line: what the host did and the work in flight, briefly;
   * the note: that work in full, where it was issued */
  if (strstr(p->api, "GraphLaunch")) {
    /* a CUDA graph: one of its copy, memset or kernel nodes uses it */
    f = findings_add(out, p->check, &loc,
                     "%s %s memory at 0x%" PRIx64 " while a graph launched on"
                     " %s, whose nodes use it, may still be running",
                     what, mem, (uint64_t)p->address, sb);
    finding_set_fix(f, "synchronize with the graph first (cudaStreamSynchronize"
                       " on the launch's stream, or cudaEventSynchronize on an"
                       " event recorded after the launch; in PyTorch"
                       " torch.cuda.synchronize()), or give the host a buffer"
                       " of its own");
    finding_add_related(f, &copy_loc, "the graph launched here, on %s (%s)",
                        stream, api);
  } else if (p->is_kernel) {
    char arg[300] = "";
    if (p->param >= 0) {
      char *a = cl_kernel_argument(p->kernel_sig, (int)p->param);
      snprintf(arg, sizeof arg, " (%s)", a);
      free(a);
    }
    const char *verb = p->check == CHECK_HOST_READ_BEFORE_SYNC ? "write"
                                                               : "be using";
    f = findings_add(out, p->check, &loc,
                     "%s %s memory at 0x%" PRIx64 " while kernel %s%s on %s"
                     " may still %s it",
                     what, mem, (uint64_t)p->address, p->kernel, arg, sb, verb);
    finding_set_fix(f, "synchronize with the kernel first (cudaStreamSynchronize"
                       " on its stream, cudaEventSynchronize on an event"
                       " recorded after it, or cudaDeviceSynchronize; in"
                       " PyTorch torch.cuda.synchronize()), or give the host"
                       " a buffer of its own");
    finding_add_related(f, &copy_loc, "kernel %s%s launched here, on %s",
                        p->kernel_sig ? p->kernel_sig : p->kernel, arg, stream);
    finding_add_kernel(f, p->kernel_sig);
  } else if (p->is_memset) {
    f = findings_add(out, p->check, &loc,
                     "%s %s memory at 0x%" PRIx64 " while a memset on %s is"
                     " still in flight",
                     what, mem, (uint64_t)p->address, sb);
    finding_set_fix(f, "synchronize first (cudaStreamSynchronize, or"
                       " cudaEventSynchronize on an event recorded after the"
                       " memset)");
    finding_add_related(f, &copy_loc, "the memset still in flight, on %s:"
                        " %s of %s", stream, api,
                        fmt_bytes(b1, sizeof b1, p->bytes));
  } else {
    f = findings_add(out, p->check, &loc,
                     "%s %s memory at 0x%" PRIx64 " while a %s copy on %s is"
                     " still in flight",
                     what, mem, (uint64_t)p->address, dir, sb);
    finding_set_fix(f, "synchronize first (cudaStreamSynchronize, or"
                       " cudaEventSynchronize on an event recorded after the"
                       " copy; in PyTorch torch.cuda.synchronize() or"
                       " event.synchronize()), or use a separate buffer per step");
    finding_add_related(f, &copy_loc, "the %s copy still in flight, on %s:"
                        " %s of %s", dir, stream, api,
                        fmt_bytes(b1, sizeof b1, p->bytes));
  }
  f->count = p->count;
  finding_set_extra(f, "bytes", p->bytes);
  finding_add_op(f, p->copy_seq);
  finding_add_op(f, p->access_seq);
  free(stream);
}

/* the size under which a pinned allocation a kernel takes may be a flag */
#define SMALL_PINNED_BYTES 4096

void analysis_host(struct report_ctx *ctx, struct findings *out)
{
  struct db_cursor *hc = host_accesses_open(ctx->db);
  struct streams ss;
  streams_load(&ss, ctx->db);
  struct pair *v = NULL;
  size_t n = 0, cap = 0;
  struct host_access h;
  while (host_accesses_next(hc, &h)) {
    struct pair p = {finding_check(h.kind ? h.kind : "free"),
                     h.stack,
                     h.pystack,
                     h.copy_seq,
                     h.address,
                     h.bytes,
                     0,
                     h.seq,
                     "",
                     "",
                     0,
                     0,
                     -1,
                     NULL,
                     1,
                     NULL,
                     ""};
    snprintf(p.api, sizeof p.api, "%s", h.api ? h.api : "?");
    snprintf(p.direction, sizeof p.direction, "%s",
             h.direction ? h.direction : "async");
    p.is_memset = h.is_memset;
    p.is_kernel = h.is_kernel;
    p.param = h.param;
    const char *mk = h.memkind;
    snprintf(p.memkind, sizeof p.memkind, "%s", mk ? mk : "pinned");
    /* A pinned allocation smaller than a page that a running kernel takes
     * is the flag of a host-device protocol more often than a buffer (a
     * kernel spinning on `volatile int *flag` until the host writes it:
     * NVIDIA's p2pBandwidthLatencyTest and cudaGraphsPerfScaling, XLA's
     * GpuSemaphore).  Host and device may share mapped pinned memory
     * (CUDA Programming Guide, "Mapped Memory"; system-scope atomics,
     * "Memory Fence Functions") and cudalens cannot see whether the
     * accesses are volatile or atomic: a handoff it cannot see, so no
     * error.  Copies and memsets into such memory, and frees, are still
     * reported (libcudalens(7), HOST ACCESSES). */
    if (p.check != CHECK_PINNED_FREE_BEFORE_SYNC && h.is_kernel &&
        (!mk || !strcmp(mk, "pinned") || !strcmp(mk, "registered")) &&
        h.has_mem_size && h.mem_size < SMALL_PINNED_BYTES)
      continue;
  size_t i;
    for (i = 0; i < n; i++)
      if (v[i].check == p.check && v[i].access_stack == p.access_stack &&
          v[i].access_pystack == p.access_pystack)
        break;
    if (i < n) {
      v[i].count++;
      continue;
    }
    /* no stream (NULL): the legacy default stream, or the per-thread one
     * for a _ptsz/_ptds API */
    p.stream = streams_lookup(&ss, h.has_stream, h.stream, h.device,
                              p.copy_seq, h.api);
    if (p.is_kernel) {
      const char *name =
          h.kname >= 0 ? names_kernel(ctx->db, h.kname).demangled : NULL;
      p.kernel_sig = xstrdup(name ? name : "?");
      p.kernel = cl_kernel_brief(p.kernel_sig); /* for the first line */
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      v = realloc(v, cap * sizeof *v);
      if (!v)
        abort();
    }
    v[n++] = p;
  }
  db_cursor_close(hc);
  for (size_t i = 0; i < n; i++) {
    emit(ctx, out, &ss, &v[i]);
    free(v[i].kernel);
    free(v[i].kernel_sig);
  }
  free(v);
  streams_free(&ss);
}

/* find_host.c - host-read-before-sync, host-write-before-sync and
 * pinned-free-before-sync: the host touching (or freeing) pinned memory
 * while an async copy on it was still in flight, as caught by the shim's
 * page protection (host_accesses).  One finding per pair of call sites (the
 * host access and the copy), with a count. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyses.h"
#include "util.h"

struct pair {
  enum check_id check;
  int64_t access_seq, access_stack, access_pystack, copy_seq, address, bytes,
      stream;
  char direction[16];
  uint64_t count;
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
                 const struct pair *p)
{
  struct callsite at, copy;
  callsite_resolve_ids(ctx->cs, p->access_stack, p->access_pystack, &at);
  callsite_resolve_call(ctx->cs, p->copy_seq, &copy);
  struct location loc = callsite_location(&at);
  struct location copy_loc = callsite_location(&copy);
  const char *dir = !strcmp(p->direction, "dtoh")   ? "device-to-host"
                    : !strcmp(p->direction, "htod") ? "host-to-device"
                                                    : p->direction;
  const char *what = p->check == CHECK_HOST_READ_BEFORE_SYNC    ? "the host reads"
                     : p->check == CHECK_HOST_WRITE_BEFORE_SYNC ? "the host writes"
                                                                : "the host frees";
  char stream[32];
  if (p->stream == 0)
    snprintf(stream, sizeof stream, "the default stream");
  else
    snprintf(stream, sizeof stream, "stream 0x%" PRIx64, (uint64_t)p->stream);
  struct finding *f = findings_add(
      out, p->check, &loc,
      "%s pinned memory at 0x%" PRIx64 " while a %s copy of %" PRId64
      " bytes on %s is still in flight (no synchronization covers it)",
      what, (uint64_t)p->address, dir, p->bytes, stream);
  finding_set_fix(f, "synchronize first (cudaStreamSynchronize, or"
                     " cudaEventSynchronize on an event recorded after the"
                     " copy; in PyTorch torch.cuda.synchronize() or"
                     " event.synchronize()), or use a separate buffer per step");
  f->count = p->count;
  finding_add_op(f, p->copy_seq);
  finding_add_op(f, p->access_seq);
  finding_add_related(f, &copy_loc, "the %s copy still in flight, on %s", dir,
                      stream);
}

void analysis_host(struct report_ctx *ctx, struct findings *out)
{
  sqlite3_stmt *st = db_prepare(
      ctx->db,
      "SELECT h.kind, h.seq, coalesce(h.stack, -1), coalesce(h.pystack, -1),"
      " h.copy_seq, h.address, t.bytes, t.stream, t.direction"
      " FROM host_accesses h LEFT JOIN transfers t ON t.seq = h.copy_seq"
      " ORDER BY h.seq");
  struct pair *v = NULL;
  size_t n = 0, cap = 0;
  while (db_step(ctx->db, st)) {
    const char *access = (const char *)sqlite3_column_text(st, 0);
    struct pair p = {finding_check(access ? access : "free"),
                     sqlite3_column_int64(st, 1),
                     sqlite3_column_int64(st, 2),
                     sqlite3_column_int64(st, 3),
                     sqlite3_column_int64(st, 4),
                     sqlite3_column_int64(st, 5),
                     sqlite3_column_int64(st, 6),
                     sqlite3_column_int64(st, 7),
                     "",
                     1};
    const char *dir = (const char *)sqlite3_column_text(st, 8);
    snprintf(p.direction, sizeof p.direction, "%s", dir ? dir : "async");
    size_t i;
    for (i = 0; i < n; i++)
      if (v[i].check == p.check && v[i].access_stack == p.access_stack &&
          v[i].access_pystack == p.access_pystack)
        break;
    if (i < n) {
      v[i].count++;
      continue;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      v = realloc(v, cap * sizeof *v);
      if (!v)
        abort();
    }
    v[n++] = p;
  }
  db_finalize(st);
  for (size_t i = 0; i < n; i++)
    emit(ctx, out, &v[i]);
  free(v);
}

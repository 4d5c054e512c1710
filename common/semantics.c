/* semantics.c - lookups into include/cudalens/ops.def, the table of CUDA's
 * ordering semantics (see cudalens/semantics.h). */
#include "cudalens/semantics.h"

#include <stddef.h>

static const struct cl_op_sem no_sem = {CL_WORK_NONE, CL_HOST_NONE,
                                        CL_EDGE_DOC, NULL};

/* each class's row of ops.def, by position: ROW_<class> */
enum {
#define CL_OP_SEM(op, work, host, edge, doc) ROW_##op,
#include "cudalens/ops.def"
};

const struct cl_op_sem *cl_op_sem(enum cl_op op)
{
  static const struct { enum cl_op op; struct cl_op_sem sem; } rows[] = {
#define CL_OP_SEM(op, work, host, edge, doc)                                   \
  {CL_OP_##op, {CL_WORK_##work, CL_HOST_##host, CL_EDGE_##edge, doc}},
#include "cudalens/ops.def"
  };
  /* a class's row + 1, 0 for a class ops.def does not list: asked on every
   * synchronization the program makes, so not searched for */
  static const unsigned char row_of[CL_OP_COUNT] = {
#define CL_OP_SEM(op, work, host, edge, doc) [CL_OP_##op] = ROW_##op + 1,
#include "cudalens/ops.def"
  };
  _Static_assert(sizeof rows / sizeof rows[0] < 255, "row_of holds row + 1 in a byte");
  if ((unsigned)op >= CL_OP_COUNT || !row_of[op])
    return &no_sem;
  return &rows[row_of[op] - 1].sem;
}

bool cl_op_is_stream_work(enum cl_op op, bool has_stream)
{
  const struct cl_op_sem *s = cl_op_sem(op);
  return s->work == CL_WORK_TASK || s->work == CL_WORK_MARK ||
         (s->work == CL_WORK_HANDLE && has_stream);
}

bool cl_op_is_stream_task(enum cl_op op)
{
  return cl_op_sem(op)->work == CL_WORK_TASK;
}

bool cl_memkind_is_host(enum cl_memkind k)
{
  return k == CL_MEMKIND_PAGEABLE || k == CL_MEMKIND_PINNED ||
         k == CL_MEMKIND_REGISTERED;
}

enum cl_memclass cl_memclass_of(enum cl_memkind k)
{
  switch (k) {
  case CL_MEMKIND_PAGEABLE: return CL_MC_PAGEABLE;
  case CL_MEMKIND_PINNED:
  case CL_MEMKIND_REGISTERED: return CL_MC_PINNED;
  case CL_MEMKIND_MANAGED: return CL_MC_MANAGED;
  case CL_MEMKIND_DEVICE:
  case CL_MEMKIND_DEVICE_ASYNC:
  case CL_MEMKIND_ARRAY:
  case CL_MEMKIND_MAPPED: return CL_MC_DEVICE;
  default: return CL_MC_ANY; /* unknown */
  }
}

/* section 2, as data */
enum { M_SYNC = 1, M_ASYNC = 2, M_ANY = 3 };
enum { OP_COPY, OP_MEMSET };
#define MODE_SYNC M_SYNC
#define MODE_ASYNC M_ASYNC
#define MODE_ANY M_ANY
#define DIR_ANY (-1)
#define DIR_HTOD CL_DIR_HTOD
#define DIR_DTOH CL_DIR_DTOH
#define DIR_DTOD CL_DIR_DTOD
#define DIR_HTOH CL_DIR_HTOH
#define DIR_PEER CL_DIR_PEER
#define KIND_PAGEABLE CL_MC_PAGEABLE
#define KIND_PINNED CL_MC_PINNED
#define KIND_MANAGED CL_MC_MANAGED
#define KIND_DEVICE CL_MC_DEVICE
#define KIND_ANY CL_MC_ANY
#define BEFORE_NONE false
#define BEFORE_STREAM true
#define SOURCE_STREAM false
#define SOURCE_HOST true

struct row {
  int op, mode, dir, kind;
  struct cl_copy_rule rule;
};

static const struct row copy_rows[] = {
#define CL_COPY_RULE(id, op, mode, dir, kind, before, source, after, edge, doc) \
  {OP_##op, MODE_##mode, DIR_##dir, KIND_##kind,                               \
   {CL_RULE_##id, #id, BEFORE_##before, SOURCE_##source,                   \
    CL_AFTER_##after, CL_EDGE_##edge, doc}},
#include "cudalens/ops.def"
};

const struct cl_copy_rule *cl_copy_rule(bool is_memset, bool async, int dir,
                                        int host_kind)
{
  int op = is_memset ? OP_MEMSET : OP_COPY;
  int mode = async ? M_ASYNC : M_SYNC;
  int kind = cl_memclass_of((enum cl_memkind)host_kind);
  const struct row *last = NULL;
  for (size_t i = 0; i < sizeof copy_rows / sizeof copy_rows[0]; i++) {
    const struct row *r = &copy_rows[i];
    if (r->op != op || !(r->mode & mode))
      continue;
    last = r;
    if ((r->dir == DIR_ANY || r->dir == dir) &&
        (r->kind == KIND_ANY || r->kind == kind))
      return &r->rule;
  }
  return &last->rule; /* the table ends each op with a catch-all row */
}

enum cl_host cl_host_after(enum cl_op op, const struct cl_copy_rule *rule)
{
  enum cl_host h = cl_op_sem(op)->host;
  if (h != CL_HOST_RULE)
    return h;
  return rule && rule->after == CL_AFTER_DONE ? CL_HOST_STREAM : CL_HOST_NONE;
}

/* section 3b, as data */
#define SYNC_DEVICE CL_SYNC_DEVICE
#define SYNC_STREAM CL_SYNC_STREAM
#define SYNC_EVENT CL_SYNC_EVENT
#define SYNC_ISSUE CL_SYNC_ISSUE
#define SC_LEGACY CL_SC_LEGACY
#define SC_PER_THREAD CL_SC_PER_THREAD
#define SC_BLOCKING CL_SC_BLOCKING
#define SC_NONBLOCKING CL_SC_NONBLOCKING
#define SC_UNKNOWN CL_SC_UNKNOWN
#define SC_ANY CL_SC_ANY
#define SC_SAME (-1)

static const struct cover_row {
  enum cl_sync_kind sync;
  int on, work;
  struct cl_cover_rule rule;
} cover_rows[] = {
#define CL_SYNC_COVER(id, sync, on, work, cover, doc)                          \
  {SYNC_##sync, SC_##on, SC_##work,                                            \
   {CL_COVER_RULE_##id, #id, CL_COVER_##cover, doc}},
#include "cudalens/ops.def"
};

const struct cl_cover_rule *cl_sync_rule(const struct cl_sync *sync,
                                         const struct cl_prior *prior)
{
  const struct cover_row *last = NULL;
  for (size_t i = 0; i < sizeof cover_rows / sizeof *cover_rows; i++) {
    const struct cover_row *r = &cover_rows[i];
    if (r->sync != sync->kind)
      continue;
    last = r;
    if (r->on != CL_SC_ANY && r->on != (int)sync->on)
      continue;
    if (r->work == SC_SAME ? prior->same_stream
                           : prior->same_device &&
                                 (r->work == CL_SC_ANY ||
                                  r->work == (int)prior->stream))
      return &r->rule;
  }
  return &last->rule; /* the table ends each kind with a catch-all row */
}

enum cl_cover cl_sync_covers(const struct cl_sync *sync,
                             const struct cl_prior *prior)
{
  return cl_sync_rule(sync, prior)->cover;
}

bool cl_sync_kind_of(enum cl_host host, enum cl_sync_kind *kind)
{
  switch (host) {
  case CL_HOST_STREAM: *kind = CL_SYNC_STREAM; return true;
  case CL_HOST_EVENT: *kind = CL_SYNC_EVENT; return true;
  case CL_HOST_DEVICE: *kind = CL_SYNC_DEVICE; return true;
  default: return false;
  }
}

/* section 4 (ARRAY memory follows peer access like DEVICE memory) */
static const struct {
  enum cl_memkind kind;
  const char *right, *doc;
} access_rules[] = {
#define CL_ACCESS_RULE(id, kind, right, doc) {CL_MEMKIND_##kind, right, doc},
#include "cudalens/ops.def"
};

static int access_rule(enum cl_memkind k)
{
  if (k == CL_MEMKIND_ARRAY)
    k = CL_MEMKIND_DEVICE;
  for (size_t i = 0; i < sizeof access_rules / sizeof *access_rules; i++)
    if (access_rules[i].kind == k)
      return (int)i;
  return -1;
}

const char *cl_access_right(enum cl_memkind k)
{
  int i = access_rule(k);
  return i < 0 ? NULL : access_rules[i].right;
}

const char *cl_access_doc(enum cl_memkind k)
{
  int i = access_rule(k);
  return i < 0 ? NULL : access_rules[i].doc;
}

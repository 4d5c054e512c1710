/* format.c - the tables of a cudalens recording and the names of the enums
 * stored in them.  Shared by libcudalens.so and cudalens-report; documented
 * in man/cudalens-db.5.  Times are nanoseconds on CUPTI's clock (host
 * timestamps and GPU activity share it); addresses and handles are stored as
 * SQLite integers (the 64-bit pattern, so values above 2^63 read negative). */
#include "cudalens/format.h"

#include <stddef.h>
#include <string.h>

const char *cl_op_name(enum cl_op op)
{
  static const char *const names[] = {
#define CL_OP_NAME(id, name) name,
      CL_OP_LIST(CL_OP_NAME)
#undef CL_OP_NAME
  };
  return (unsigned)op < CL_OP_COUNT ? names[op] : "other";
}

const char *cl_sync_kind_name(enum cl_op op)
{
  switch (op) {
  case CL_OP_SYNC_DEVICE: return "device";
  case CL_OP_SYNC_CONTEXT: return "context";
  case CL_OP_SYNC_STREAM: return "stream";
  case CL_OP_SYNC_EVENT: return "event";
  case CL_OP_QUERY_STREAM: return "stream-query";
  case CL_OP_QUERY_EVENT: return "event-query";
  default: return NULL;
  }
}

int cl_sync_kind_op(const char *kind)
{
  for (int op = 0; kind && op < CL_OP_COUNT; op++) {
    const char *k = cl_sync_kind_name((enum cl_op)op);
    if (k && !strcmp(k, kind))
      return op;
  }
  return -1;
}

const char *cl_memkind_name(enum cl_memkind k)
{
  static const char *const names[] = {
#define CL_MEMKIND_NAME(id, name) name,
      CL_MEMKIND_LIST(CL_MEMKIND_NAME)
#undef CL_MEMKIND_NAME
  };
  return (unsigned)k < CL_MEMKIND_COUNT ? names[k] : "unknown";
}

const char *cl_dir_name(enum cl_dir d)
{
  static const char *const names[] = {
#define CL_DIR_NAME(id, name) name,
      CL_DIR_LIST(CL_DIR_NAME)
#undef CL_DIR_NAME
  };
  return (unsigned)d < CL_DIR_COUNT ? names[d] : "unknown";
}

const char *cl_gnode_name(int type)
{
  switch (type) {
#define CL_GNODE_CASE(id, value, name) case value: return name;
    CL_GNODE_LIST(CL_GNODE_CASE)
#undef CL_GNODE_CASE
  }
  return "unknown";
}

int cl_gnode_of(const char *name)
{
#define CL_GNODE_CMP(id, value, str)                                           \
  if (name && !strcmp(name, str))                                              \
    return value;
  CL_GNODE_LIST(CL_GNODE_CMP)
#undef CL_GNODE_CMP
  return CL_GNODE_UNKNOWN;
}

/* Indexes are built when a recording is closed (inserting is faster
 * without them); a reader of a recording whose process was killed may
 * create them itself. */
const char CL_INDEX_SQL[] =
    "CREATE INDEX IF NOT EXISTS activity_correlation"
    " ON activity(correlation);\n";

const char CL_SCHEMA_SQL[] =
    /* key/value facts about the process: format, cudalens_version, pid,
     * ppid, hostname, exe, cmdline (JSON array), cuda_visible_devices,
     * start_ns, end_ns, end, clean_exit, cupti_version, capture */
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);\n"
    /* the CUDA APIs cudalens understands (include/cudalens/api.def) */
    "CREATE TABLE api(id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
    " domain TEXT NOT NULL, cbid INTEGER NOT NULL, op TEXT NOT NULL);\n"
    "CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL);\n"
    /* loaded objects: [start,end) mapped, bias = load address */
    "CREATE TABLE modules(id INTEGER PRIMARY KEY, path TEXT NOT NULL,"
    " start INTEGER NOT NULL, end INTEGER NOT NULL, bias INTEGER NOT NULL,"
    " build_id TEXT);\n"
    /* return addresses, little-endian uint64, innermost first */
    "CREATE TABLE stacks(id INTEGER PRIMARY KEY, frames BLOB NOT NULL);\n"
    "CREATE TABLE devices(ordinal INTEGER PRIMARY KEY, name TEXT, uuid TEXT,"
    " pci_bus_id TEXT, cc_major INTEGER, cc_minor INTEGER,"
    " total_mem INTEGER);\n"
    "CREATE TABLE contexts(id INTEGER PRIMARY KEY, device INTEGER,"
    " handle INTEGER, created_seq INTEGER, destroyed_seq INTEGER);\n"
    /* one row per CUDA call; seq is the global order across threads.
     * stream: 0 legacy default, 2 per-thread default, else the handle.
     * pystack: strings.id of the Python stack when the call came from
     * Python: lines "file:line:function", innermost first */
    "CREATE TABLE calls(seq INTEGER PRIMARY KEY, api INTEGER NOT NULL,"
    " tid INTEGER NOT NULL, start_ns INTEGER NOT NULL,"
    " end_ns INTEGER NOT NULL, result INTEGER NOT NULL, device INTEGER,"
    " context INTEGER, stream INTEGER, correlation INTEGER,"
    " driver_correlation INTEGER, stack INTEGER, pystack INTEGER);\n"
    "CREATE TABLE streams(seq INTEGER PRIMARY KEY, handle INTEGER NOT NULL,"
    " device INTEGER, flags INTEGER, priority INTEGER,"
    " destroyed_seq INTEGER);\n"
    "CREATE TABLE events(seq INTEGER PRIMARY KEY, handle INTEGER NOT NULL,"
    " flags INTEGER, device INTEGER, destroyed_seq INTEGER);\n"
    "CREATE TABLE event_records(seq INTEGER PRIMARY KEY, event INTEGER,"
    " stream INTEGER);\n"
    "CREATE TABLE stream_waits(seq INTEGER PRIMARY KEY, stream INTEGER,"
    " event INTEGER);\n"
    /* kind: device, context, stream, event, stream-query, event-query;
     * complete: 1 when the call returned success (work known finished) */
    "CREATE TABLE syncs(seq INTEGER PRIMARY KEY, kind TEXT NOT NULL,"
    " stream INTEGER, event INTEGER, complete INTEGER NOT NULL);\n"
    /* op: alloc or free; kind: see cl_memkind (free rows copy the kind of
     * the allocation when known) */
    "CREATE TABLE memory(seq INTEGER PRIMARY KEY, op TEXT NOT NULL,"
    " address INTEGER, size INTEGER, kind TEXT, device INTEGER,"
    " flags INTEGER, stream INTEGER);\n"
    /* op: copy or memset; direction as requested (see cl_dir) */
    "CREATE TABLE transfers(seq INTEGER PRIMARY KEY, op TEXT NOT NULL,"
    " direction TEXT, dst INTEGER, src INTEGER, bytes INTEGER,"
    " value INTEGER, async INTEGER NOT NULL, stream INTEGER,"
    " src_device INTEGER, dst_device INTEGER);\n"
    /* name: strings.id of the mangled kernel name */
    "CREATE TABLE kernels(seq INTEGER PRIMARY KEY, name INTEGER,"
    " grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER,"
    " block_y INTEGER, block_z INTEGER, shared_mem INTEGER,"
    " stream INTEGER);\n"
    /* kernel argument words that pointed into a live allocation at launch:
     * parameter index, byte offset inside that parameter, pointer value */
    "CREATE TABLE kernel_args(seq INTEGER NOT NULL, param INTEGER NOT NULL,"
    " offset INTEGER NOT NULL, value INTEGER NOT NULL,"
    " PRIMARY KEY(seq, param, offset)) WITHOUT ROWID;\n"
    /* op: set-device, set-context, reset-device, peer-enable, peer-disable */
    "CREATE TABLE device_ops(seq INTEGER PRIMARY KEY, op TEXT NOT NULL,"
    " device INTEGER, peer INTEGER);\n"
    /* op: host-func, graph-launch, capture-begin, capture-end, prefetch;
     * handle: the host function, graph exec or prefetched address */
    "CREATE TABLE stream_ops(seq INTEGER PRIMARY KEY, op TEXT NOT NULL,"
    " stream INTEGER, handle INTEGER);\n"
    /* GPU-side records from CUPTI's activity API, joined to calls by
     * correlation (= calls.correlation or calls.driver_correlation).
     * kind: kernel, memcpy, memset, memcpy-p2p */
    "CREATE TABLE activity(correlation INTEGER NOT NULL, kind TEXT NOT NULL,"
    " start_ns INTEGER, end_ns INTEGER, device INTEGER, context INTEGER,"
    " stream_id INTEGER, bytes INTEGER, copy_kind TEXT, src_kind TEXT,"
    " dst_kind TEXT, src_device INTEGER, dst_device INTEGER,"
    " name INTEGER);\n"
    /* the host touching pinned memory of an in-flight async copy (kind read
     * or write, caught by page protection) or freeing it (kind free);
     * copy_seq: the copy's call */
    "CREATE TABLE host_accesses(seq INTEGER PRIMARY KEY, tid INTEGER NOT NULL,"
    " kind TEXT NOT NULL, address INTEGER NOT NULL, copy_seq INTEGER,"
    " stack INTEGER, pystack INTEGER);\n"
    /* anything not recorded, by reason; absent means nothing was lost */
    "CREATE TABLE drops(reason TEXT PRIMARY KEY, count INTEGER NOT NULL);\n"
    "CREATE TABLE threads(tid INTEGER PRIMARY KEY, name TEXT);\n"
    /* host-thread ordering (since schema 2): kind create (thread tid
     * created thread other; seq is when pthread_create was called) or join
     * (thread tid joined thread other) */
    "CREATE TABLE thread_edges(seq INTEGER PRIMARY KEY, kind TEXT NOT NULL,"
    " tid INTEGER NOT NULL, other INTEGER NOT NULL);\n"
    /* names the program gave through NVTX (since schema 3): kind stream
     * (handle: the stream handle as passed, 0 the legacy default stream)
     * or thread (handle: the thread id); seq orders it among the calls */
    "CREATE TABLE names(seq INTEGER PRIMARY KEY, kind TEXT NOT NULL,"
    " handle INTEGER NOT NULL, name TEXT NOT NULL);\n"
    /* convenience: calls with their API name and operation class */
    "CREATE VIEW ops AS SELECT c.*, a.name AS api_name, a.op AS op"
    " FROM calls c JOIN api a ON a.id = c.api;\n"
    /* convenience: the GPU activity of each call */
    "CREATE VIEW call_activity AS SELECT c.seq AS seq, x.*"
    " FROM calls c JOIN activity x ON x.correlation = c.correlation"
    " UNION ALL SELECT c.seq AS seq, x.* FROM calls c JOIN activity x"
    " ON x.correlation = c.driver_correlation"
    " AND c.driver_correlation IS NOT c.correlation;\n";

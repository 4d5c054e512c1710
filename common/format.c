/* format.c - the names of the enums stored in a cudalens recording.  Shared
 * by libcudalens.so and cudalens-report; the tables themselves are declared
 * in include/cudalens/tables.def (common/tables.c); both are documented in
 * man/cudalens-db.5. */
#include "cudalens/format.h"

#include <stddef.h>
#include <string.h>

/* The names are rows of characters, not pointers: nothing for the loader to
 * relocate, in every process the shim is preloaded into (issue 24, item
 * 10).  A name longer than a row fails the build (FITS). */
#define ROW 24
#define FITS(id, name) char id##_[sizeof(name) <= ROW ? 1 : -1];
struct op_names_fit { CL_OP_LIST(FITS) };
struct memkind_names_fit { CL_MEMKIND_LIST(FITS) };
struct dir_names_fit { CL_DIR_LIST(FITS) };
struct fp_kind_names_fit { CL_FP_KIND_LIST(FITS) };
#undef FITS

const char *cl_op_name(enum cl_op op)
{
  static const char names[][ROW] = {
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
  static const char names[][ROW] = {
#define CL_MEMKIND_NAME(id, name) name,
      CL_MEMKIND_LIST(CL_MEMKIND_NAME)
#undef CL_MEMKIND_NAME
  };
  return (unsigned)k < CL_MEMKIND_COUNT ? names[k] : "unknown";
}

const char *cl_dir_name(enum cl_dir d)
{
  static const char names[][ROW] = {
#define CL_DIR_NAME(id, name) name,
      CL_DIR_LIST(CL_DIR_NAME)
#undef CL_DIR_NAME
  };
  return (unsigned)d < CL_DIR_COUNT ? names[d] : "unknown";
}

const char *cl_fp_kind_name(enum cl_fp_kind k)
{
  static const char names[][ROW] = {
#define CL_FP_KIND_NAME(id, name) name,
      CL_FP_KIND_LIST(CL_FP_KIND_NAME)
#undef CL_FP_KIND_NAME
  };
  return (unsigned)k < CL_FP_KIND_COUNT ? names[k] : "unknown";
}

int cl_fp_kind_of(const char *name)
{
  for (int k = 0; name && k < CL_FP_KIND_COUNT; k++)
    if (!strcmp(cl_fp_kind_name((enum cl_fp_kind)k), name))
      return k;
  return -1;
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

/* decode.c - the API table, generated from include/cudalens/api.def: for each
 * CUDA API we understand, its CUPTI callback id, operation class, flags and a
 * decoder that reads its parameter struct into struct cl_args (reached by
 * cl_api_decode's switch, and the names by offset: no pointers in the
 * table, nothing for the loader to relocate). */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <stddef.h>
#include <string.h>

#include "shim.h"

/* nvcc 13's <<<>>> entry point has a callback id but no params struct in the
 * headers; its parameters are laid out like cudaLaunchKernel's. */
typedef cudaLaunchKernel_v7000_params __cudaLaunchKernel_v13000_params;
typedef cudaLaunchKernel_v7000_params __cudaLaunchKernel_ptsz_v13000_params;
/* APIs without parameters have no params struct either. */
typedef struct { char none; } cl_no_params;
typedef cl_no_params cudaDeviceSynchronize_v3020_params;
typedef cl_no_params cudaThreadSynchronize_v3020_params;
typedef cl_no_params cudaDeviceReset_v3020_params;
typedef cl_no_params cuCtxSynchronize_params;

#define U(x) ((uint64_t)(uintptr_t)(x))
#define DST(x) a->dst = U(x);
#define SRC(x) a->src = U(x);
#define BYTES(x) a->bytes = (uint64_t)(x);
#define VALUE(x) a->value = (uint64_t)(x);
#define STREAM(x) a->stream = U(x);
#define EVENT(x) a->event = U(x);
#define HANDLE(x) a->handle = U(x);
#define OUT_HANDLE(pp) a->handle = (pp) ? U(*(pp)) : 0;
#define GRAPH(x) a->graph = U(x);
#define FLAGS(x) a->flags = (uint32_t)(x);
#define PRIORITY(x) a->priority = (int32_t)(x);
#define DEVICE(x) a->device = (int32_t)(x), a->has_device = 1;
#define PEER(x) a->peer = (int32_t)(x);
#define DIR(d) a->dir = CL_DIR_##d;
#define RTKIND(k) a->dir = rt_dir(k);
#define MEMKIND(m) a->memkind = CL_MEMKIND_##m;
#define OUT_DST(pp) a->dst = (pp) ? U(*(pp)) : 0;
#define OUT_STREAM(pp) a->stream = (pp) ? U(*(pp)) : 0;
#define OUT_EVENT(pp) a->event = (pp) ? U(*(pp)) : 0;
#define GRID3(d) a->grid[0] = (d).x, a->grid[1] = (d).y, a->grid[2] = (d).z;
#define BLOCK3(d) a->block[0] = (d).x, a->block[1] = (d).y, a->block[2] = (d).z;
#define GRIDXYZ(x, y, z) a->grid[0] = (x), a->grid[1] = (y), a->grid[2] = (z);
#define BLOCKXYZ(x, y, z) a->block[0] = (x), a->block[1] = (y), a->block[2] = (z);
#define SHMEM(x) a->shmem = (uint32_t)(x);
/* access descriptors of devices (location type 1: CU_MEM_LOCATION_TYPE_DEVICE,
 * cudaMemLocationTypeDevice; flags 1 read, 3 read-write, 0 none) */
#define ACCESS(desc, count)                                                    \
  for (size_t i_ = 0; (desc) && i_ < (size_t)(count); i_++) {                  \
    int id_ = (desc)[i_].location.id;                                          \
    if ((int)(desc)[i_].location.type != 1 || id_ < 0 || id_ >= 64)            \
      continue;                                                                \
    uint64_t bit_ = 1ull << id_;                                               \
    a->acc_named |= bit_;                                                      \
    a->acc_read = ((int)(desc)[i_].flags & 1) ? a->acc_read | bit_             \
                                             : a->acc_read & ~bit_;            \
    a->acc_write = ((int)(desc)[i_].flags & 2) ? a->acc_write | bit_           \
                                              : a->acc_write & ~bit_;          \
  }

static uint8_t rt_dir(enum cudaMemcpyKind k)
{
  switch (k) {
  case cudaMemcpyHostToHost: return CL_DIR_HTOH;
  case cudaMemcpyHostToDevice: return CL_DIR_HTOD;
  case cudaMemcpyDeviceToHost: return CL_DIR_DTOH;
  case cudaMemcpyDeviceToDevice: return CL_DIR_DTOD;
  case cudaMemcpyDefault: return CL_DIR_DEFAULT;
  }
  return CL_DIR_UNKNOWN;
}

#define CL_DECODER(name, ...)                                                  \
  static void decode_##name(const void *params, struct cl_args *a)             \
  {                                                                            \
    const name##_params *P = params;                                           \
    (void)P;                                                                   \
    (void)a;                                                                   \
    __VA_ARGS__                                                                \
  }
#define CL_RUNTIME(name, op, flags, ...) CL_DECODER(name, __VA_ARGS__)
#define CL_DRIVER(name, op, flags, ...) CL_DECODER(name, __VA_ARGS__)
#include "cudalens/api.def"
#undef CL_RUNTIME
#undef CL_DRIVER

/* the NCCL rows (nccl.def) follow api.def's; each NCCL row's cbid is its
 * index among them */
enum {
#define CL_RUNTIME(name, ...) CL_ROW_##name,
#define CL_DRIVER(name, ...) CL_ROW_##name,
#include "cudalens/api.def"
#undef CL_RUNTIME
#undef CL_DRIVER
  CL_ROWS_CUDA
};
enum {
#define CL_NCCL_COLL(name, ...) CL_NROW_##name,
#define CL_NCCL_COMM(name, ...) CL_NROW_##name,
#include "cudalens/nccl.def"
  CL_ROWS_NCCL
};
const unsigned cl_api_nccl_first = CL_ROWS_CUDA;

/* the names: one member each, so that a name's offset is a constant */
struct cl_api_names {
#define CL_NAME_MEMBER(name, ...) char name[sizeof #name];
#define CL_RUNTIME CL_NAME_MEMBER
#define CL_DRIVER CL_NAME_MEMBER
#include "cudalens/api.def"
#undef CL_RUNTIME
#undef CL_DRIVER
#define CL_NCCL_COLL CL_NAME_MEMBER
#define CL_NCCL_COMM CL_NAME_MEMBER
#include "cudalens/nccl.def"
#undef CL_NAME_MEMBER
};
const struct cl_api_names cl_api_names = {
#define CL_NAME_VALUE(name, ...) #name,
#define CL_RUNTIME CL_NAME_VALUE
#define CL_DRIVER CL_NAME_VALUE
#include "cudalens/api.def"
#undef CL_RUNTIME
#undef CL_DRIVER
#define CL_NCCL_COLL CL_NAME_VALUE
#define CL_NCCL_COMM CL_NAME_VALUE
#include "cudalens/nccl.def"
#undef CL_NAME_VALUE
};
#define CL_NAME_AT(name) offsetof(struct cl_api_names, name)

const struct cl_api cl_api_table[] = {
#define CL_RUNTIME(name, op, flags, ...)                                       \
  {CL_NAME_AT(name), (flags), CUPTI_CB_DOMAIN_RUNTIME_API,                     \
   CUPTI_RUNTIME_TRACE_CBID_##name, CL_OP_##op},
#define CL_DRIVER(name, op, flags, ...)                                        \
  {CL_NAME_AT(name), (flags), CUPTI_CB_DOMAIN_DRIVER_API,                      \
   CUPTI_DRIVER_TRACE_CBID_##name, CL_OP_##op},
#include "cudalens/api.def"
#undef CL_RUNTIME
#undef CL_DRIVER
#define CL_NCCL_COLL(name, kind, send, recv, doc)                              \
  {CL_NAME_AT(name), CL_ASYNC, CL_DOMAIN_NCCL, CL_NROW_##name,                 \
   CL_OP_COLLECTIVE},
#define CL_NCCL_COMM(name, op, doc)                                            \
  {CL_NAME_AT(name), 0, CL_DOMAIN_NCCL, CL_NROW_##name, CL_OP_##op},
#include "cudalens/nccl.def"
};
const unsigned cl_api_count = sizeof cl_api_table / sizeof cl_api_table[0];
_Static_assert(sizeof(struct cl_api_names) <= 65535,
               "cl_api.name_at is 16 bits");

void cl_api_decode(const struct cl_api *api, const void *params,
                   struct cl_args *a)
{
  switch (api - cl_api_table) {
#define CL_RUNTIME(name, ...)                                                  \
  case CL_ROW_##name:                                                          \
    decode_##name(params, a);                                                  \
    return;
#define CL_DRIVER CL_RUNTIME
#include "cudalens/api.def"
#undef CL_RUNTIME
#undef CL_DRIVER
  default: /* NCCL's rows: recorded by shim/nccl.c, not decoded from CUPTI */
    return;
  }
}

/* Direct lookup tables indexed by cbid, built on first use. */
#define CL_MAX_CBID 1024
static short runtime_index[CL_MAX_CBID], driver_index[CL_MAX_CBID];
static pthread_once_t index_once = PTHREAD_ONCE_INIT;
static _Atomic int index_built; /* (pthread_once asked only until then) */

static void build_index(void)
{
  for (int i = 0; i < CL_MAX_CBID; i++)
    runtime_index[i] = driver_index[i] = -1;
  for (unsigned i = 0; i < cl_api_count; i++) {
    const struct cl_api *e = &cl_api_table[i];
    if (e->cbid >= CL_MAX_CBID || e->domain == CL_DOMAIN_NCCL)
      continue;
    if (e->domain == CUPTI_CB_DOMAIN_RUNTIME_API)
      runtime_index[e->cbid] = (short)i;
    else
      driver_index[e->cbid] = (short)i;
  }
  atomic_store_explicit(&index_built, 1, memory_order_release);
}

int cl_api_named(const char *name)
{
  for (unsigned i = 0; i < cl_api_count; i++)
    if (!strcmp(cl_api_name(&cl_api_table[i]), name))
      return (int)i;
  return -1;
}

int cl_api_lookup(int domain, unsigned cbid)
{
  if (!atomic_load_explicit(&index_built, memory_order_acquire))
    pthread_once(&index_once, build_index);
  if (cbid >= CL_MAX_CBID)
    return -1;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return runtime_index[cbid];
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    return driver_index[cbid];
  return -1;
}

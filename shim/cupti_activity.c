/* cupti_activity.c - CUPTI activity records: GPU start/end times of kernels, copies
 * and memsets, the memory kind (pageable, pinned, ...) of each side of a
 * copy, and CUPTI's own drop counts.  CUPTI fills buffers we hand it; each
 * completed buffer is turned into activity records on the thread that CUPTI
 * delivers it on. */
#include <stdlib.h>

#include "cupti.h"
#include "cupti_activity.h"
#include "ring.h"

#define BUFFER_SIZE (4u << 20)

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size,
                                      size_t *max_records)
{
  *buffer = aligned_alloc(8, BUFFER_SIZE);
  *size = *buffer ? BUFFER_SIZE : 0;
  *max_records = 0;
}

static void put(const struct cl_activity *a)
{
  struct cl_record *r = cl_ring_reserve(CL_REC_ACTIVITY);
  if (!r)
    return;
  r->type = CL_REC_ACTIVITY;
  r->u.act = *a;
  cl_ring_commit();
}

/* the fields CUpti_ActivityMemcpy6 and CUpti_ActivityMemcpyPtoP4 share */
#define CL_COPY_FIELDS(a, m)                                                   \
  do {                                                                         \
    (a).copy_kind = (m)->copyKind;                                             \
    (a).src_kind = (m)->srcKind;                                               \
    (a).dst_kind = (m)->dstKind;                                               \
    (a).bytes = (m)->bytes;                                                    \
    (a).start_ns = (m)->start;                                                 \
    (a).end_ns = (m)->end;                                                     \
    (a).device = (m)->deviceId;                                                \
    (a).context = (m)->contextId;                                              \
    (a).stream_id = (m)->streamId;                                             \
  } while (0)

static void convert(const CUpti_Activity *rec)
{
  struct cl_activity a = {0};
  switch (rec->kind) {
  case CUPTI_ACTIVITY_KIND_MEMCPY: {
    const CUpti_ActivityMemcpy6 *m = (const void *)rec;
    a.kind = CL_ACT_MEMCPY;
    CL_COPY_FIELDS(a, m);
    /* the runtime call's id when a runtime call issued it */
    a.correlation = m->runtimeCorrelationId ? m->runtimeCorrelationId
                                            : m->correlationId;
    a.src_device = a.dst_device = (int32_t)m->deviceId;
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMCPY2: {
    const CUpti_ActivityMemcpyPtoP4 *m = (const void *)rec;
    a.kind = CL_ACT_P2P;
    CL_COPY_FIELDS(a, m);
    a.correlation = m->correlationId;
    a.src_device = (int32_t)m->srcDeviceId;
    a.dst_device = (int32_t)m->dstDeviceId;
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMSET: {
    const CUpti_ActivityMemset4 *m = (const void *)rec;
    a.kind = CL_ACT_MEMSET;
    a.dst_kind = (uint8_t)m->memoryKind;
    a.bytes = m->bytes;
    a.start_ns = m->start;
    a.end_ns = m->end;
    a.device = m->deviceId;
    a.context = m->contextId;
    a.stream_id = m->streamId;
    a.correlation = m->correlationId;
    a.src_device = a.dst_device = -1;
    break;
  }
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
    const CUpti_ActivityKernel10 *k = (const void *)rec;
    a.kind = CL_ACT_KERNEL;
    a.start_ns = k->start;
    a.end_ns = k->end;
    a.device = k->deviceId;
    a.context = k->contextId;
    a.stream_id = k->streamId;
    a.correlation = k->correlationId;
    a.name = cl_intern(k->name);
    a.src_device = a.dst_device = -1;
    break;
  }
  default:
    return;
  }
  put(&a);
}

static void drop(const char *reason, uint64_t n)
{
  struct cl_record *r = cl_ring_reserve(CL_REC_DROP);
  if (!r)
    return;
  r->type = CL_REC_DROP;
  r->u.drop = (struct cl_drop_rec){reason, n};
  cl_ring_commit();
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id,
                                      uint8_t *buffer, size_t size,
                                      size_t valid)
{
  CUpti_Activity *rec = NULL;
  unsigned n = 0;
  (void)size;
  while (cl_cupti.cuptiActivityGetNextRecord(buffer, valid, &rec) ==
         CUPTI_SUCCESS) {
    convert(rec);
    n++;
  }
  CL_LOG(CL_LOG_DEBUG, "%u activity records", n);
  size_t dropped = 0;
  if (cl_cupti.cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) ==
          CUPTI_SUCCESS &&
      dropped)
    drop("cupti-activity", dropped);
  free(buffer);
}

int cl_activity_start(void)
{
  CUptiResult r =
      cl_cupti.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) {
    CL_LOG(CL_LOG_WARN, "no GPU activity records (%s): GPU times and memory "
                        "kinds are not recorded", cl_cupti_error(r));
    return -1;
  }
  static const struct {
    CUpti_ActivityKind kind;
    int kernels;
  } kinds[] = {
#define CL_ACTIVITY(kind, kernels) {kind, kernels},
#include "cudalens/activity.def"
#undef CL_ACTIVITY
  };
  for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if ((!kinds[i].kernels || cl_cfg.kernel_times) &&
        (r = cl_cupti.cuptiActivityEnable(kinds[i].kind)) != CUPTI_SUCCESS)
      CL_LOG(CL_LOG_WARN, "cannot enable CUPTI activity kind %d: %s",
             (int)kinds[i].kind, cl_cupti_error(r));
  return 0;
}

void cl_activity_flush(int forced)
{
  if (cl_cfg.gpu_activity)
    cl_cupti.cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

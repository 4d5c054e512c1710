/* summary.h - the descriptive part of a report: the process, its devices,
 * streams and what ran on them, copies by direction and host memory kind,
 * kernels per stream, and host time blocked in synchronization. */
#ifndef CL_REPORT_SUMMARY_H
#define CL_REPORT_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudalens/format.h"
#include "model/activity.h"
#include "model/db.h"
#include "model/memmodel.h"
#include "model/streams.h"

struct drop {
  char *reason;
  int64_t count;
};

struct process {
  char *pid, *ppid, *host, *exe, *cudalens_version, *cupti_version;
  char *capture, *cuda_visible_devices;
  char **argv;          /* meta.cmdline parsed */
  size_t argc;
  char *cmdline_raw;    /* meta.cmdline when it is not a JSON array */
  int64_t rank;         /* meta.rank: the rank in a multi-process job, -1 none */
  int64_t start_ns, end_ns; /* -1 when absent */
  int64_t last_ns;      /* latest end_ns of a call, -1 without calls */
  bool clean_exit;
  int64_t calls, threads;
  struct drop *drops;
  size_t ndrops;
  unsigned not_recorded; /* bits 1 << enum not_recorded */
  /* meta ring_full_waits/_wait_ns: how often and how long (ns) the
   * program's threads waited for the recorder's writer; 0 when never (or
   * not recorded) */
  int64_t writer_waits, writer_wait_ns;
};

/* What the recording left out by its configuration (meta gpu_activity,
 * kernel_times), for the report to say so. */
enum not_recorded { NOT_RECORDED_GPU_ACTIVITY, NOT_RECORDED_KERNEL_TIMES,
                    NOT_RECORDED_BENCH_PHASES, NOT_RECORDED_COUNT };
extern const struct not_recorded_info {
  const char *name; /* JSON */
  const char *text; /* what is missing, and the switch that records it */
} not_recorded_info[NOT_RECORDED_COUNT];

struct device {
  int64_t ordinal;
  char *name, *uuid, *pci_bus_id;
  int64_t cc_major, cc_minor, total_mem; /* -1 when NULL */
};

/* per stream instance (same index as struct streams) */
enum stream_op {
  SOP_KERNEL, SOP_COPY, SOP_MEMSET, SOP_RECORD, SOP_WAIT, SOP_SYNC,
  SOP_OTHER, SOP_COUNT
};
extern const char *const stream_op_names[SOP_COUNT];

struct kernel_stat {
  size_t stream;
  int64_t name;        /* strings.id, -1 unknown */
  char *display;       /* demangled */
  char *mangled;
  int64_t count, gpu_ns;
};

struct stream_stat {
  int64_t ops[SOP_COUNT];
  int64_t kernels, kernels_timed, kernel_gpu_ns;
  struct kernel_stat **top; /* by GPU time, then count, then name */
  size_t ntop, nkernel_names;
};

/* copies by direction x host memory kind (CL_MEMKIND_COUNT: no host side) */
struct copy_stat {
  int64_t count, bytes;
  int64_t timed, timed_bytes, gpu_ns; /* copies with GPU activity */
};

struct sync_stat {
  char *kind;
  int64_t count, host_ns, max_ns, complete;
};

#define SUMMARY_TOP_KERNELS 5

struct summary {
  struct process proc;
  struct device *devices;
  size_t ndevices;
  struct streams streams;
  struct stream_stat *sstats; /* streams.n entries */
  size_t *order;              /* report order of streams */
  struct copy_stat copies[CL_DIR_COUNT][CL_MEMKIND_COUNT + 1];
  struct kernel_stat *kstats;
  size_t nkstats;
  struct sync_stat *syncs;
  size_t nsyncs;
};

void summary_build(struct summary *s, struct cl_db *d,
                   const struct activity *act);
void summary_free(struct summary *s);
/* host kind column name: a cl_memkind name, or "-" for device-only copies */
const char *copy_host_kind_name(int k);

#endif

/* find_common.h - helpers shared by the transfer and device analyses
 * (find_transfers.c, find_pinning.c, find_syncs.c, find_devices.c,
 * find_streams.c): call sites deduplicated by location, per-site groups of
 * occurrences with their numbers, the process's wall time, API display
 * names, and the host side of a copy. */
#ifndef CL_REPORT_FIND_COMMON_H
#define CL_REPORT_FIND_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checks/findings.h"
#include "model/activity.h"
#include "model/memmodel.h"
#include "model/streams.h"
#include "checks/report.h"
#include "u64map.h"

struct replay_op;

/* Call sites, one per distinct user location: calls with different stacks
 * that resolve to the same file:line (or module+offset) share a site; calls
 * whose stack has no user frame (or no stack) share the "unknown" site. */
struct site {
  char *key;           /* "file:line:function", "module+0x..", or "" */
  struct location loc; /* borrowed from the call-site resolver */
};

struct sites {
  struct callsites *cs;
  struct site *v;
  size_t n, cap;
  struct u64map by_stack; /* stack id (+ pystack) -> index in v */
};

void sites_init(struct sites *s, struct callsites *cs);
void sites_free(struct sites *s);
/* the site of a call with calls.stack STACK and calls.pystack PYSTACK (each
 * -1 when NULL).  The one place that turns a call into its user location:
 * Python frames, once the resolver knows them, come in here. */
size_t sites_of(struct sites *s, int64_t stack, int64_t pystack);

/* What the analyses add up per (site, tag); the meaning of the counters is
 * the analysis's own. */
struct group {
  size_t site;
  uint32_t tag;
  int64_t first_seq, last_seq; /* the first and latest groups_get seq */
  int64_t count, bytes, host_ns;
  int64_t timed, timed_bytes, gpu_ns; /* occurrences with GPU activity */
  int64_t count2, host2_ns;           /* a second kind of call (frees, syncs) */
  int dir;                            /* enum cl_dir, -1 unknown */
  int64_t dev_a, dev_b;               /* devices, -1 unknown */
  char *text;                         /* malloc'd detail, or NULL */
};

struct groups {
  struct group *v;
  size_t n, cap;
  struct u64map idx;
};

void groups_init(struct groups *g);
void groups_free(struct groups *g);
/* the group of (SITE, TAG), created zeroed (first_seq = SEQ, dir = -1,
 * devices -1) on first use; the pointer is valid until the next call */
struct group *groups_get(struct groups *g, size_t site, uint32_t tag,
                         int64_t seq);

/* Wall time of the process as far as it used CUDA: from the earlier of
 * meta.start_ns and the first call to the end of the last recorded call
 * (meta.end_ns also counts the recorder's own flush at exit); 0 when
 * unknown. */
int64_t process_wall_ns(struct report_ctx *ctx);

/* calls.seq of the process's first successful kernel or graph launch;
 * INT64_MAX when it launched none.  Transfer findings whose calls all
 * come before it are setup (finding_cost_severity). */
int64_t first_kernel_seq(struct report_ctx *ctx);

/* A stream's name for a finding's first line: NAME (a stream_title)
 * without its parenthesized details: "stream 2", "the legacy default
 * stream" (into BUF). */
const char *stream_brief(char *buf, size_t len, const char *name);

/* Does the blocking synchronization that is the current op O (its
 * sync_op, and sync stream) wait for work issued earlier to stream
 * instance COPY of SS (streams_lookup)?  By the one coverage rule (ops.def
 * section 3b, cl_sync_covers): a device synchronization covers its
 * device's streams, a stream synchronization its stream and, for the
 * legacy default stream, the device's streams that synchronize with it.
 * Queries, which do not wait, never do. */
bool sync_covers(struct streams *ss, const struct replay_op *o, size_t copy);

/* bytes per nanosecond as GB/s (decimal); 0 when unknown */
double gbps(int64_t bytes, int64_t ns);


#endif

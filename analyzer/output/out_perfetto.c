/* out_perfetto.c - the timeline as a Chrome trace-event file (the JSON
 * Object Format: {"traceEvents": [...], "displayTimeUnit": "ns"}), which
 * ui.perfetto.dev and chrome://tracing open (--format=perfetto).  Each
 * device is a process (pid = its ordinal, named "GPU 0: NAME"), each stream
 * that got work a thread of it (named as findings name the stream); the
 * host is one more process with a thread per host thread.  Operations are
 * complete events ("X", microseconds from the timeline's origin), event
 * record -> stream wait edges flow events ("s"/"f"), and each finding an
 * instant event ("i") on the lane of the operation it is located at, with a
 * flow from the other operation it names (the ordering the program lacks).
 * The layout is the timeline's (timeline.c); this file only writes it.
 * Checked by tests/recordings/perfetto.test (check_trace.py). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "output/output.h"
#include "util.h"

/* the ids of the trace: pid and tid of a lane.  Slices of one thread
 * must nest, so an operation that overlaps the one before it on its lane
 * (overlapping GPU records of one stream, in odd recordings) goes to an
 * extra thread of the lane, "... (overlapping R)": row R = 1, 2, ... */
struct ids {
  const struct timeline *tl;
  int64_t host_pid;
  size_t *row;        /* per op: its thread of the lane, 0 the lane's own */
  size_t *nrows;      /* per lane */
};

#define ROW_TID 1000000 /* tid of row R > 0: R * ROW_TID + lane + 1 */

static int64_t lane_pid(const struct ids *d, size_t lane)
{
  const struct tl_lane *l = &d->tl->lanes[lane];
  return l->host ? d->host_pid : l->device;
}

static int64_t lane_tid(const struct ids *d, size_t lane, size_t row)
{
  const struct tl_lane *l = &d->tl->lanes[lane];
  if (row)
    return (int64_t)row * ROW_TID + (int64_t)lane + 1;
  return l->host ? l->tid : (int64_t)lane + 1;
}

static const struct timeline *sort_tl; /* for cmp_op */

static int cmp_op(const void *pa, const void *pb)
{
  const struct tl_op *a = &sort_tl->ops[*(const size_t *)pa];
  const struct tl_op *b = &sort_tl->ops[*(const size_t *)pb];
  if (a->lane != b->lane)
    return a->lane < b->lane ? -1 : 1;
  if (a->start_ns != b->start_ns)
    return a->start_ns < b->start_ns ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* the duration written for op X (points get POINT_NS, so flows can bind) */
#define POINT_NS 2
static int64_t op_dur(const struct tl_op *x)
{
  int64_t d;
  if (x->end_ns > x->start_ns)
    return __builtin_sub_overflow(x->end_ns, x->start_ns, &d) ? INT64_MAX : d;
  return x->kind == TL_RECORD || x->kind == TL_WAIT || x->kind == TL_ACCESS
             ? POINT_NS : 0;
}

/* each op in the first row of its lane that is free at its start */
static void assign_rows(struct ids *d)
{
  const struct timeline *tl = d->tl;
  d->row = xcalloc(tl->nops + 1, sizeof *d->row);
  d->nrows = xcalloc(tl->nlanes + 1, sizeof *d->nrows);
  size_t *order = xcalloc(tl->nops + 1, sizeof *order);
  for (size_t i = 0; i < tl->nops; i++)
    order[i] = i;
  sort_tl = tl;
  qsort(order, tl->nops, sizeof *order, cmp_op);
  int64_t *row_end = NULL;
  size_t cap = 0;
  for (size_t k = 0; k < tl->nops; k++) {
    const struct tl_op *x = &tl->ops[order[k]];
    size_t lane = x->lane, r;
    if (k == 0 || tl->ops[order[k - 1]].lane != lane)
      d->nrows[lane] = 0;
    for (r = 0; r < d->nrows[lane] && row_end[r] > x->start_ns; r++)
      ;
    if (r == d->nrows[lane]) {
      GROW(row_end, cap, r + 1);
      d->nrows[lane]++;
    }
    row_end[r] = sat_add(x->start_ns, op_dur(x)); /* extreme times saturate */
    d->row[order[k]] = r;
  }
  free(row_end);
  free(order);
}

/* nanoseconds from the origin as the format's microseconds */
static void kv_us(struct json *j, const char *key, int64_t ns)
{
  json_key(j, key);
  json_double(j, (double)ns / 1000.0, 3);
}

/* an event on the thread of op OP */
static void event_head(struct json *j, const struct ids *d, const char *ph,
                       const char *name, const char *cat, size_t op)
{
  size_t lane = d->tl->ops[op].lane;
  json_begin_object(j);
  json_kv_string(j, "name", name);
  if (cat)
    json_kv_string(j, "cat", cat);
  json_kv_string(j, "ph", ph);
  json_kv_int(j, "pid", lane_pid(d, lane));
  json_kv_int(j, "tid", lane_tid(d, lane, d->row[op]));
}

static void metadata(struct json *j, const char *name, int64_t pid,
                     int64_t tid, const char *key, const char *text,
                     int64_t number)
{
  json_begin_object(j);
  json_kv_string(j, "name", name);
  json_kv_string(j, "ph", "M");
  json_kv_int(j, "pid", pid);
  json_kv_int(j, "tid", tid);
  json_key(j, "args");
  json_begin_object(j);
  if (text)
    json_kv_string(j, key, text);
  else
    json_kv_int(j, key, number);
  json_end_object(j);
  json_end_object(j);
}

static const char *device_name(const struct summary *s, int64_t ordinal)
{
  for (size_t i = 0; i < s->ndevices; i++)
    if (s->devices[i].ordinal == ordinal && s->devices[i].name)
      return s->devices[i].name;
  return "unknown device";
}

static void names(struct json *j, const struct ids *d, const struct summary *s)
{
  const struct timeline *tl = d->tl;
  for (size_t i = 0; i < tl->nlanes; i++) {
    const struct tl_lane *l = &tl->lanes[i];
    bool first = i == 0 || l->host != tl->lanes[i - 1].host ||
                 l->device != tl->lanes[i - 1].device;
    if (first) {
      char *pname = l->host ? xasprintf("host: %s (pid %s)",
                                        s->proc.exe ? path_base(s->proc.exe) : "?",
                                        s->proc.pid ? s->proc.pid : "?")
                            : xasprintf("GPU %" PRId64 ": %s", l->device,
                                        device_name(s, l->device));
      metadata(j, "process_name", lane_pid(d, i), 0, "name", pname, 0);
      metadata(j, "process_sort_index", lane_pid(d, i), 0, "sort_index", NULL,
               l->host ? INT32_MAX : l->device);
      free(pname);
    }
    for (size_t r = 0; r < d->nrows[i] || r == 0; r++) {
      char *title = r ? xasprintf("%s (overlapping %zu)", l->title, r) : NULL;
      metadata(j, "thread_name", lane_pid(d, i), lane_tid(d, i, r), "name",
               r ? title : l->title, 0);
      metadata(j, "thread_sort_index", lane_pid(d, i), lane_tid(d, i, r),
               "sort_index", NULL, (int64_t)(i * 64 + (r < 63 ? r : 63)));
      free(title);
    }
  }
}

static void ops(struct json *j, const struct ids *d)
{
  const struct timeline *tl = d->tl;
  for (size_t i = 0; i < tl->nops; i++) {
    const struct tl_op *x = &tl->ops[i];
    event_head(j, d, "X", x->name, tl_kind_names[x->kind], i);
    kv_us(j, "ts", x->start_ns);
    kv_us(j, "dur", op_dur(x));
    json_key(j, "args");
    json_begin_object(j);
    json_kv_int(j, "seq", x->seq);
    if (x->kind <= TL_MEMSET)
      json_kv_bool(j, "gpu_time", x->timed);
    json_end_object(j);
    json_end_object(j);
  }
}

/* a flow from op A to op B (bound to the slices that enclose the points) */
static void flow(struct json *j, const struct ids *d, int64_t id,
                 const char *name, const char *cat, size_t a, size_t b)
{
  const struct tl_op *x[2] = {&d->tl->ops[a], &d->tl->ops[b]};
  for (int k = 0; k < 2; k++) {
    event_head(j, d, k ? "f" : "s", name, cat, k ? b : a);
    json_kv_int(j, "id", id);
    if (k)
      json_kv_string(j, "bp", "e");
    kv_us(j, "ts", sat_add(x[k]->start_ns, op_dur(x[k]) / 2));
    json_end_object(j);
  }
}

static void findings(struct json *j, const struct ids *d,
                     const struct findings *fs, int64_t flow_id)
{
  for (size_t i = 0; i < fs->n; i++) {
    const struct finding *f = &fs->v[i];
    long at[FINDING_MAX_OPS];
    long last = -1;
    for (size_t k = 0; k < f->nops; k++)
      if ((at[k] = timeline_find(d->tl, f->ops[k])) >= 0)
        last = at[k];
    char *name = xasprintf("%s: %s", severity_name(f->severity), f->kind);
    if (last >= 0) {
      event_head(j, d, "i", name, "finding", (size_t)last);
      json_kv_string(j, "s", "t");
      kv_us(j, "ts", d->tl->ops[last].start_ns);
    } else {
      json_begin_object(j);
      json_kv_string(j, "name", name);
      json_kv_string(j, "cat", "finding");
      json_kv_string(j, "ph", "i");
      json_kv_int(j, "pid", d->host_pid);
      json_kv_int(j, "tid", 0);
      json_kv_string(j, "s", "g");
      kv_us(j, "ts", 0);
    }
    char loc[512];
    json_key(j, "args");
    json_begin_object(j);
    json_kv_string(j, "kind", f->kind);
    json_kv_string(j, "severity", severity_name(f->severity));
    json_kv_string(j, "message", f->message);
    json_kv_string(j, "location", location_text(loc, sizeof loc, &f->loc));
    json_kv_string(j, "fingerprint", f->fingerprint);
    json_key(j, "seqs");
    json_begin_array(j);
    for (size_t k = 0; k < f->nops; k++)
      json_int(j, f->ops[k]);
    json_end_array(j);
    json_end_object(j);
    json_end_object(j);
    if (f->nops == 2 && at[0] >= 0 && at[1] >= 0 && at[0] != at[1]) {
      char *fname = xasprintf("unordered (%s)", f->kind);
      flow(j, d, flow_id++, fname, "finding", (size_t)at[0], (size_t)at[1]);
      free(fname);
    }
    free(name);
  }
}

void output_perfetto(FILE *f, const struct summary *s, const struct findings *fs,
                     const struct timeline *tl)
{
  /* the host: the recorded pid, unless a device ordinal has that number */
  int64_t max_device = -1, pid = -1;
  for (size_t i = 0; i < tl->nlanes; i++)
    if (!tl->lanes[i].host && tl->lanes[i].device > max_device)
      max_device = tl->lanes[i].device;
  char *end;
  if (s->proc.pid && *s->proc.pid && (pid = strtoll(s->proc.pid, &end, 10), *end))
    pid = -1;
  struct ids d = {.tl = tl, .host_pid = pid > max_device ? pid : max_device + 1};
  assign_rows(&d);

  struct json j;
  json_init(&j, f);
  json_begin_object(&j);
  json_kv_string(&j, "displayTimeUnit", "ns");
  json_key(&j, "otherData");
  json_begin_object(&j);
  json_kv_string(&j, "generator", "cudalens-report " PACKAGE_VERSION);
  json_kv_int(&j, "origin_ns", tl->origin_ns);
  json_end_object(&j);
  json_key(&j, "traceEvents");
  json_begin_array(&j);
  names(&j, &d, s);
  ops(&j, &d);
  int64_t id = 1;
  for (size_t i = 0; i < tl->nflows; i++) {
    char hx[32];
    char *name = xasprintf("event %s", fmt_hex(hx, sizeof hx, (int64_t)tl->flows[i].event));
    flow(&j, &d, id++, name, "event", tl->flows[i].from, tl->flows[i].to);
    free(name);
  }
  findings(&j, &d, fs, id);
  json_end_array(&j);
  json_end_object(&j);
  json_finish(&j);
  free(d.row);
  free(d.nrows);
}

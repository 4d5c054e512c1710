/* out_json.c - the JSON report:
 *   {"schema": "cudalens-report/1", "summary": {...}, "findings": [...],
 *    "suppressed": {"count": N, "by": [...]}}
 * or, for several recordings, "processes": [{"recording": PATH, "summary":
 * {...}}, ...] in place of "summary", and each finding with its
 * "processes" (pids) and "ranks".
 * Handles and addresses are "0x..." strings (64-bit values do not survive
 * JSON numbers in every reader); times are integer nanoseconds.  Its JSON
 * Schema is doc/cudalens-report.schema.json (checked by
 * tests/recordings/schema.test): change both together. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "output/output.h"
#include "util.h"

static void kv_opt_int(struct json *j, const char *key, int64_t v)
{
  json_key(j, key);
  if (v < 0)
    json_null(j);
  else
    json_int(j, v);
}

/* a meta value that should be a number: number if it is one, else string */
static void num_text(struct json *j, const char *v)
{
  char *end;
  if (v && *v && (strtoll(v, &end, 10), !*end))
    json_int(j, strtoll(v, NULL, 10));
  else
    json_string(j, v);
}

static void kv_num_text(struct json *j, const char *key, const char *v)
{
  json_key(j, key);
  num_text(j, v);
}

static void kv_hex(struct json *j, const char *key, int64_t v)
{
  char b[32];
  json_kv_string(j, key, fmt_hex(b, sizeof b, v));
}

static void process(struct json *j, const struct process *p)
{
  json_key(j, "process");
  json_begin_object(j);
  kv_num_text(j, "pid", p->pid);
  kv_num_text(j, "ppid", p->ppid);
  if (p->rank >= 0) /* only when recorded: older reports stay as they were */
    json_kv_int(j, "rank", p->rank);
  json_kv_string(j, "host", p->host);
  json_kv_string(j, "exe", p->exe);
  json_key(j, "cmdline");
  if (p->cmdline_raw) {
    json_string(j, p->cmdline_raw);
  } else {
    json_begin_array(j);
    for (size_t i = 0; i < p->argc; i++)
      json_string(j, p->argv[i]);
    json_end_array(j);
  }
  kv_opt_int(j, "start_ns", p->start_ns);
  kv_opt_int(j, "end_ns", p->end_ns);
  kv_opt_int(j, "duration_ns", p->start_ns >= 0 && p->end_ns >= p->start_ns
                                   ? p->end_ns - p->start_ns : -1);
  json_kv_bool(j, "clean_exit", p->clean_exit);
  json_kv_int(j, "calls", p->calls);
  json_kv_int(j, "threads", p->threads);
  json_kv_string(j, "cudalens_version", p->cudalens_version);
  json_kv_string(j, "cupti_version", p->cupti_version);
  json_kv_string(j, "cuda_visible_devices", p->cuda_visible_devices);
  json_key(j, "drops");
  json_begin_array(j);
  for (size_t i = 0; i < p->ndrops; i++) {
    json_begin_object(j);
    json_kv_string(j, "reason", p->drops[i].reason);
    json_kv_int(j, "count", p->drops[i].count);
    json_end_object(j);
  }
  json_end_array(j);
  if (p->not_recorded) { /* only then: older reports stay as they were */
    json_key(j, "not_recorded");
    json_begin_array(j);
    for (int i = 0; i < NOT_RECORDED_COUNT; i++)
      if (p->not_recorded & (1u << i))
        json_string(j, not_recorded_info[i].name);
    json_end_array(j);
  }
  if (p->writer_waits) { /* only when it happened: older reports stay */
    json_key(j, "writer_wait");
    json_begin_object(j);
    json_kv_int(j, "count", p->writer_waits);
    json_kv_int(j, "ns", p->writer_wait_ns);
    json_end_object(j);
  }
  json_end_object(j);
}

static void devices(struct json *j, const struct summary *s)
{
  json_key(j, "devices");
  json_begin_array(j);
  for (size_t i = 0; i < s->ndevices; i++) {
    const struct device *d = &s->devices[i];
    json_begin_object(j);
    json_kv_int(j, "ordinal", d->ordinal);
    json_kv_string(j, "name", d->name);
    json_kv_string(j, "uuid", d->uuid);
    json_kv_string(j, "pci_bus_id", d->pci_bus_id);
    kv_opt_int(j, "cc_major", d->cc_major);
    kv_opt_int(j, "cc_minor", d->cc_minor);
    kv_opt_int(j, "total_mem", d->total_mem);
    json_end_object(j);
  }
  json_end_array(j);
}

static void streams(struct json *j, const struct summary *s)
{
  json_key(j, "streams");
  json_begin_array(j);
  for (size_t i = 0; i < s->streams.n; i++) {
    size_t k = s->order[i];
    const struct stream *st = &s->streams.v[k];
    const struct stream_stat *ss = &s->sstats[k];
    json_begin_object(j);
    kv_opt_int(j, "device", st->device);
    kv_hex(j, "handle", st->handle);
    json_kv_string(j, "kind", stream_kind_name(st->kind));
    if (st->name)
      json_kv_string(j, "name", st->name);
    json_key(j, "blocking");
    if (st->flags < 0)
      json_null(j);
    else
      json_bool(j, stream_blocking(st));
    kv_opt_int(j, "flags", st->flags);
    json_kv_int(j, "priority", st->priority);
    kv_opt_int(j, "created_seq", st->created_seq);
    kv_opt_int(j, "destroyed_seq", st->destroyed_seq);
    json_key(j, "ops");
    json_begin_object(j);
    for (int o = 0; o < SOP_COUNT; o++)
      json_kv_int(j, stream_op_names[o], ss->ops[o]);
    json_end_object(j);
    json_end_object(j);
  }
  json_end_array(j);
}

static void copies(struct json *j, const struct summary *s)
{
  json_key(j, "copies");
  json_begin_array(j);
  for (int d = 0; d < CL_DIR_COUNT; d++)
    for (int k = 0; k <= CL_MEMKIND_COUNT; k++) {
      const struct copy_stat *c = &s->copies[d][k];
      if (!c->count)
        continue;
      json_begin_object(j);
      json_kv_string(j, "direction", cl_dir_name(d));
      json_kv_string(j, "host_kind", k < CL_MEMKIND_COUNT
                                          ? copy_host_kind_name(k) : NULL);
      json_kv_int(j, "count", c->count);
      json_kv_int(j, "bytes", c->bytes);
      json_kv_int(j, "timed", c->timed);
      json_kv_int(j, "gpu_ns", c->gpu_ns);
      json_key(j, "bandwidth_gbps");
      if (c->timed && c->gpu_ns > 0)
        json_double(j, (double)c->timed_bytes / (double)c->gpu_ns, 3);
      else
        json_null(j);
      json_end_object(j);
    }
  json_end_array(j);
}

static void kernels(struct json *j, const struct summary *s)
{
  json_key(j, "kernels");
  json_begin_array(j);
  for (size_t i = 0; i < s->streams.n; i++) {
    size_t k = s->order[i];
    const struct stream_stat *ss = &s->sstats[k];
    if (!ss->kernels)
      continue;
    json_begin_object(j);
    kv_opt_int(j, "device", s->streams.v[k].device);
    kv_hex(j, "stream", s->streams.v[k].handle);
    json_kv_int(j, "count", ss->kernels);
    json_kv_int(j, "timed", ss->kernels_timed);
    json_kv_int(j, "gpu_ns", ss->kernel_gpu_ns);
    json_kv_int(j, "distinct", (int64_t)ss->nkernel_names);
    json_key(j, "top");
    json_begin_array(j);
    for (size_t t = 0; t < ss->ntop; t++) {
      json_begin_object(j);
      json_kv_string(j, "name", ss->top[t]->display);
      json_kv_string(j, "mangled", ss->top[t]->mangled);
      json_kv_int(j, "count", ss->top[t]->count);
      json_kv_int(j, "gpu_ns", ss->top[t]->gpu_ns);
      json_end_object(j);
    }
    json_end_array(j);
    json_end_object(j);
  }
  json_end_array(j);
}

static void syncs(struct json *j, const struct summary *s)
{
  json_key(j, "syncs");
  json_begin_array(j);
  for (size_t i = 0; i < s->nsyncs; i++) {
    const struct sync_stat *x = &s->syncs[i];
    json_begin_object(j);
    json_kv_string(j, "kind", x->kind);
    json_kv_int(j, "count", x->count);
    json_kv_int(j, "host_ns", x->host_ns);
    json_kv_int(j, "max_ns", x->max_ns);
    json_kv_int(j, "complete", x->complete);
    json_end_object(j);
  }
  json_end_array(j);
}

/* one frame: file, line, function, module, offset */
static void frame(struct json *j, const struct location *l)
{
  json_kv_string(j, "file", l->file);
  json_key(j, "line");
  if (l->line > 0)
    json_int(j, l->line);
  else
    json_null(j);
  json_kv_string(j, "function", l->function);
  json_kv_string(j, "module", l->module);
  json_key(j, "offset");
  if (l->module) {
    char b[32];
    json_string(j, fmt_hex(b, sizeof b, (int64_t)l->offset));
  } else {
    json_null(j);
  }
}

/* the user's frame, and "stack": the frames the report knows, innermost
 * first: the user's frame, then with --stack=N up to N - 1 frames that
 * called it (empty for an unknown place) */
static void location(struct json *j, const struct location *l)
{
  json_begin_object(j);
  frame(j, l);
  json_key(j, "stack");
  json_begin_array(j);
  if (l->file || l->function || l->module) {
    json_begin_object(j);
    frame(j, l);
    json_end_object(j);
    for (size_t i = 0; i < l->ncallers; i++) {
      json_begin_object(j);
      frame(j, &l->callers[i]);
      json_end_object(j);
    }
  }
  json_end_array(j);
  json_end_object(j);
}

void json_finding_numbers(struct json *j, const struct finding *x)
{
  json_key(j, "count");
  json_uint(j, x->count);
  json_kv_int(j, "cost_ns", x->cost_ns);
  json_kv_string(j, "fix", x->fix);
  for (size_t e = 0; e < x->nextra; e++)
    if (x->extra[e].is_flag)
      json_kv_bool(j, x->extra[e].name, x->extra[e].value != 0);
    else
      json_kv_int(j, x->extra[e].name, x->extra[e].value);
}

/* a merged finding's processes, one entry per recording it was found in
 * (in report order): "processes", their pids, and "ranks", their ranks
 * when every recording has one, else null */
static void origins(struct json *j, const struct finding *x,
                    const struct recording *r, size_t n)
{
  json_key(j, "processes");
  json_begin_array(j);
  for (size_t k = 0; k < x->norigins; k++)
    num_text(j, r[x->origins[k]].sum.proc.pid);
  json_end_array(j);
  json_key(j, "ranks");
  if (!recordings_all_ranked(r, n)) {
    json_null(j);
    return;
  }
  json_begin_array(j);
  for (size_t k = 0; k < x->norigins; k++)
    json_int(j, r[x->origins[k]].sum.proc.rank);
  json_end_array(j);
}

static void findings(struct json *j, const struct findings *fs,
                     const struct recording *r, size_t n)
{
  json_key(j, "findings");
  json_begin_array(j);
  for (size_t i = 0; i < fs->n; i++) {
    const struct finding *x = &fs->v[i];
    const struct check_info *ci = check_info(x->check);
    json_begin_object(j);
    json_kv_int(j, "id", (int64_t)i);
    json_kv_string(j, "kind", x->kind);
    json_kv_string(j, "title", ci->title);
    json_kv_string(j, "reference", ci->reference);
    json_kv_string(j, "severity", severity_name(x->severity));
    json_kv_string(j, "fingerprint", x->fingerprint);
    json_kv_string(j, "message", x->message);
    json_key(j, "location");
    location(j, &x->loc);
    json_key(j, "related");
    json_begin_array(j);
    for (size_t r = 0; r < x->nrelated; r++) {
      json_begin_object(j);
      json_kv_string(j, "message", x->related[r].message);
      json_key(j, "location");
      location(j, &x->related[r].loc);
      json_end_object(j);
    }
    json_end_array(j);
    json_finding_numbers(j, x);
    if (n > 1)
      origins(j, x, r, n);
    json_end_object(j);
  }
  json_end_array(j);
}

/* "suppressed": {"count": N, "by": [{"source": FILE, "count": n}, ...]}:
 * every suppression file given and --disable, each with the findings it
 * took out (the first that matched) */
static void suppressed(struct json *j, const struct suppressed *sup)
{
  json_key(j, "suppressed");
  json_begin_object(j);
  json_kv_int(j, "count", sup ? (int64_t)sup->list.n : 0);
  json_key(j, "by");
  json_begin_array(j);
  for (size_t i = 0; sup && i < sup->nsources; i++) {
    json_begin_object(j);
    json_kv_string(j, "source", sup->sources[i]);
    json_kv_int(j, "count", (int64_t)sup->counts[i]);
    json_end_object(j);
  }
  json_end_array(j);
  json_end_object(j);
}

static void summary(struct json *j, const struct summary *s)
{
  json_key(j, "summary");
  json_begin_object(j);
  process(j, &s->proc);
  devices(j, s);
  streams(j, s);
  copies(j, s);
  kernels(j, s);
  syncs(j, s);
  json_end_object(j);
}

void output_json_summary(FILE *f, const struct summary *s)
{
  struct json j;
  json_init(&j, f);
  j.depth = 1;
  j.first[1] = true;
  summary(&j, s);
}

void output_json(FILE *f, const struct recording *r, size_t n,
                 const struct findings *fs, const struct suppressed *sup)
{
  struct json j;
  json_init(&j, f);
  json_begin_object(&j);
  json_kv_string(&j, "schema", "cudalens-report/1");
  if (n == 1 && r[0].json_summary) {
    json_splice(&j, r[0].json_summary, 1);
  } else if (n == 1) {
    summary(&j, &r[0].sum);
  } else {
    json_key(&j, "processes");
    json_begin_array(&j);
    for (size_t i = 0; i < n; i++) {
      json_begin_object(&j);
      json_kv_string(&j, "recording", r[i].path);
      if (r[i].json_summary)
        json_splice(&j, r[i].json_summary, 1);
      else
        summary(&j, &r[i].sum);
      json_end_object(&j);
    }
    json_end_array(&j);
  }
  findings(&j, fs, r, n);
  suppressed(&j, sup);
  json_end_object(&j);
  json_finish(&j);
}

/* out_text.c - the text report: first the findings as compiler-style lines
 * "file:line: severity: [kind] message", errors first, then by place (as
 * findings_sort orders them), each followed by its notes ("file:line:
 * note: ..." for a related place, "  note: ..." for a detail without one)
 * and its fix, and with --stack=N each place by the frames that called it
 * ("    from file:line in function"); with suppressions, how many findings they took out; then the
 * summary: process, devices, streams, copies, kernels, synchronization.
 * A report of several recordings labels each finding with its processes
 * ("in ranks 0-7") and gives each recording's summary, headed by its
 * path.  The last line is the tally, so that a log that ends with the
 * report ends with it, as valgrind's ends with its ERROR SUMMARY:
 * "cudalens: 2 errors, 0 warnings, 1 note in 1 process (3 suppressed)". */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "util.h"

/* STR with control characters and bytes that are not UTF-8 shown as \xNN */
static void put(FILE *f, const char *s)
{
  if (!s) {
    fputs("?", f);
    return;
  }
  fput_escaped(f, s);
}

/* an argument, shell-quoted when it needs to be */
static void put_arg(FILE *f, const char *a)
{
  if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                      "0123456789-_./=:,+@%") == strlen(a)) {
    put(f, a);
    return;
  }
  char *quoted = xmalloc(strlen(a) * 4 + 3), *q = quoted;
  *q++ = '\'';
  for (; *a; a++) {
    if (*a == '\'') {
      memcpy(q, "'\\''", 4);
      q += 4;
    } else {
      *q++ = *a;
    }
  }
  *q++ = '\'';
  *q = 0;
  put(f, quoted);
  free(quoted);
}

static void process(FILE *f, const struct process *p)
{
  char b1[32];
  fputs("Process ", f);
  put(f, p->pid ? p->pid : "?");
  if (p->host) {
    fputs(" on ", f);
    put(f, p->host);
  }
  fputs(p->clean_exit ? " (exited cleanly)\n"
                      : " (did not exit cleanly: the recording may be"
                        " incomplete)\n", f);
  if (p->rank >= 0)
    fprintf(f, "  rank:        %" PRId64 "\n", p->rank);
  if (p->argc || p->cmdline_raw) {
    fputs("  command:     ", f);
    if (p->cmdline_raw)
      put(f, p->cmdline_raw);
    for (size_t i = 0; i < p->argc; i++) {
      if (i)
        fputc(' ', f);
      put_arg(f, p->argv[i]);
    }
    fputc('\n', f);
  }
  if (p->exe) {
    fputs("  executable:  ", f);
    put(f, p->exe);
    fputc('\n', f);
  }
  if (p->start_ns >= 0 && p->end_ns >= p->start_ns)
    fprintf(f, "  duration:    %s\n", fmt_ns(b1, sizeof b1, p->end_ns - p->start_ns));
  else if (p->start_ns >= 0 && p->last_ns >= p->start_ns)
    fprintf(f, "  duration:    at least %s (until the last recorded call)\n",
            fmt_ns(b1, sizeof b1, p->last_ns - p->start_ns));
  fprintf(f, "  calls:       %" PRId64 " on %" PRId64 " thread%s\n", p->calls,
          p->threads, p->threads == 1 ? "" : "s");
  if (p->cudalens_version || p->cupti_version) {
    fputs("  recorder:    cudalens ", f);
    put(f, p->cudalens_version ? p->cudalens_version : "?");
    if (p->cupti_version) {
      fputs(", CUPTI ", f);
      put(f, p->cupti_version);
    }
    fputc('\n', f);
  }
  for (int i = 0; i < NOT_RECORDED_COUNT; i++)
    if (p->not_recorded & (1u << i))
      fprintf(f, "  not recorded: %s\n", not_recorded_info[i].text);
  if (p->ndrops == 0) {
    fputs("  dropped:     nothing\n", f);
  } else {
    fputs("  dropped:     ", f);
    for (size_t i = 0; i < p->ndrops; i++) {
      fputs(i ? ", " : "", f);
      put(f, p->drops[i].reason);
      fprintf(f, ": %" PRId64, p->drops[i].count);
    }
    fputc('\n', f);
  }
  if (p->writer_waits)
    fprintf(f, "  waited:      %s for the recording writer (ring full %" PRId64
               " time%s)\n", fmt_ns(b1, sizeof b1, p->writer_wait_ns),
            p->writer_waits, p->writer_waits == 1 ? "" : "s");
}

static void devices(FILE *f, const struct summary *s)
{
  char b[32];
  fputs("\nDevices:\n", f);
  if (!s->ndevices)
    fputs("  none recorded\n", f);
  for (size_t i = 0; i < s->ndevices; i++) {
    const struct device *d = &s->devices[i];
    fprintf(f, "  %" PRId64 ": ", d->ordinal);
    put(f, d->name ? d->name : "(unnamed)");
    if (d->cc_major >= 0)
      fprintf(f, ", compute %" PRId64 ".%" PRId64, d->cc_major,
              d->cc_minor < 0 ? 0 : d->cc_minor);
    if (d->total_mem >= 0)
      fprintf(f, ", %s", fmt_bytes(b, sizeof b, d->total_mem));
    if (d->pci_bus_id) {
      fputs(", PCI ", f);
      put(f, d->pci_bus_id);
    }
    if (d->uuid) {
      fputs(", ", f);
      put(f, d->uuid);
    }
    fputc('\n', f);
  }
}

/* the stream's number (stream_ordinal, as findings name it), its NVTX
 * name and its handle, escaped (malloc'd) */
static char *stream_label(const struct streams *ss, size_t i)
{
  const struct stream *st = &ss->v[i];
  char h[32], *name = st->name ? xasprintf(" \"%s\"", st->name) : xstrdup("");
  char *t;
  size_t ord = stream_ordinal(ss, i);
  if (st->kind == STREAM_LEGACY)
    t = xasprintf("legacy default%s", name);
  else if (st->kind == STREAM_PER_THREAD)
    t = xasprintf("per-thread default%s", name);
  else if (ord)
    t = xasprintf("%zu%s (%s)", ord, name, fmt_hex(h, sizeof h, st->handle));
  else if (st->name)
    t = xasprintf("%s (%s)", name + 1, fmt_hex(h, sizeof h, st->handle));
  else
    t = xstrdup(fmt_hex(h, sizeof h, st->handle));
  free(name);
  char *e = escaped(t);
  free(t);
  return e;
}

static const char *device_label(char *buf, size_t len, int64_t dev)
{
  if (dev < 0)
    return "?";
  snprintf(buf, len, "%" PRId64, dev);
  return buf;
}

static void streams(FILE *f, const struct summary *s)
{
  char bd[32], fl[64];
  fputs("\nStreams:\n", f);
  if (!s->streams.n) {
    fputs("  none used\n", f);
    return;
  }
  /* the stream column is 20 wide, wider for long NVTX names */
  int width = 20;
  for (size_t i = 0; i < s->streams.n; i++) {
    char *label = stream_label(&s->streams, i);
    if ((int)strlen(label) > width)
      width = (int)strlen(label);
    free(label);
  }
  fprintf(f, "  %-6s %-*s %-24s %7s %6s %7s %7s %5s %5s %5s\n", "device",
          width, "stream", "flags", "kernels", "copies", "memsets", "records",
          "waits", "syncs", "other");
  for (size_t i = 0; i < s->streams.n; i++) {
    size_t k = s->order[i];
    const struct stream *st = &s->streams.v[k];
    const struct stream_stat *ss = &s->sstats[k];
    if (st->kind == STREAM_UNKNOWN)
      snprintf(fl, sizeof fl, "not created here");
    else if (st->flags < 0)
      snprintf(fl, sizeof fl, "flags unknown");
    else if (st->kind == STREAM_CREATED && st->priority)
      snprintf(fl, sizeof fl, "%s, priority %" PRId64,
               stream_blocking(st) ? "blocking" : "non-blocking", st->priority);
    else
      snprintf(fl, sizeof fl, "%s",
               stream_blocking(st) ? "blocking" : "non-blocking");
    char *label = stream_label(&s->streams, k);
    fprintf(f, "  %-6s %-*s %-24s", device_label(bd, sizeof bd, st->device),
            width, label, fl);
    free(label);
    static const int w[SOP_COUNT] = {7, 6, 7, 7, 5, 5, 5};
    for (int o = 0; o < SOP_COUNT; o++)
      fprintf(f, " %*" PRId64, w[o], ss->ops[o]);
    fputc('\n', f);
  }
}

static void copies(FILE *f, const struct summary *s)
{
  char b1[32], b2[32];
  bool any = false;
  fputs("\nCopies:\n", f);
  for (int d = 0; d < CL_DIR_COUNT; d++)
    for (int k = 0; k <= CL_MEMKIND_COUNT; k++) {
      const struct copy_stat *c = &s->copies[d][k];
      if (!c->count)
        continue;
      if (!any)
        fprintf(f, "  %-9s %-12s %7s %11s %12s %12s\n", "direction",
                "host memory", "count", "bytes", "GPU time", "bandwidth");
      any = true;
      fprintf(f, "  %-9s %-12s %7" PRId64 " %11s %12s", cl_dir_name(d),
              copy_host_kind_name(k), c->count,
              fmt_bytes(b1, sizeof b1, c->bytes),
              c->timed ? fmt_ns(b2, sizeof b2, c->gpu_ns) : "-");
      if (c->timed && c->gpu_ns > 0)
        fprintf(f, " %7.2f GB/s", (double)c->timed_bytes / (double)c->gpu_ns);
      else
        fprintf(f, " %12s", "-");
      if (c->timed && c->timed < c->count)
        fprintf(f, "  (%" PRId64 " of %" PRId64 " timed)", c->timed, c->count);
      fputc('\n', f);
    }
  if (!any)
    fputs("  none\n", f);
}

static void kernels(FILE *f, const struct summary *s)
{
  char b2[32], bd[32];
  bool any = false;
  /* by the recording's settings, not lost (the "not recorded:" line) */
  bool untimed = (s->proc.not_recorded &
                  (1u << NOT_RECORDED_GPU_ACTIVITY |
                   1u << NOT_RECORDED_KERNEL_TIMES)) != 0;
  fputs("\nKernels:\n", f);
  for (size_t i = 0; i < s->streams.n; i++) {
    size_t k = s->order[i];
    const struct stream_stat *ss = &s->sstats[k];
    if (!ss->kernels)
      continue;
    any = true;
    char *label = stream_label(&s->streams, k);
    fprintf(f, "  device %s, stream %s: %" PRId64 " launch%s",
            device_label(bd, sizeof bd, s->streams.v[k].device), label,
            ss->kernels, ss->kernels == 1 ? "" : "es");
    free(label);
    if (ss->kernels_timed)
      fprintf(f, ", GPU time %s", fmt_ns(b2, sizeof b2, ss->kernel_gpu_ns));
    if (untimed)
      fputs(" (GPU times not recorded)", f);
    else if (ss->kernels_timed < ss->kernels)
      fprintf(f, " (%" PRId64 " without GPU activity)",
              ss->kernels - ss->kernels_timed);
    fprintf(f, ", %zu distinct kernel%s\n", ss->nkernel_names,
            ss->nkernel_names == 1 ? "" : "s");
    fprintf(f, "    %12s %8s  %s\n", "GPU time", "launches", "kernel");
    for (size_t t = 0; t < ss->ntop; t++) {
      const struct kernel_stat *ks = ss->top[t];
      fprintf(f, "    %12s %8" PRId64 "  ",
              ss->kernels_timed ? fmt_ns(b2, sizeof b2, ks->gpu_ns) : "-",
              ks->count);
      put(f, ks->display);
      fputc('\n', f);
    }
    if (ss->nkernel_names > ss->ntop)
      fprintf(f, "    ... and %zu more\n", ss->nkernel_names - ss->ntop);
  }
  if (!any)
    fputs("  none\n", f);
}

static void syncs(FILE *f, const struct summary *s)
{
  char b1[32], b2[32];
  fputs("\nSynchronization:\n", f);
  if (!s->nsyncs) {
    fputs("  none\n", f);
    return;
  }
  fprintf(f, "  %-12s %7s %18s %12s %9s\n", "kind", "count",
          "host time blocked", "longest", "completed");
  for (size_t i = 0; i < s->nsyncs; i++) {
    const struct sync_stat *x = &s->syncs[i];
    char *kind = escaped(x->kind ? x->kind : "?");
    fprintf(f, "  %-12s", kind);
    free(kind);
    fprintf(f, " %7" PRId64 " %18s %12s %9" PRId64 "\n", x->count,
            fmt_ns(b1, sizeof b1, x->host_ns), fmt_ns(b2, sizeof b2, x->max_ns),
            x->complete);
  }
}

/* --stack=N: the frames that called LOC, one a line */
static void callers(FILE *f, const struct location *l)
{
  char loc[4096];
  for (size_t i = 0; i < l->ncallers; i++) {
    fputs("    from ", f);
    put(f, location_text(loc, sizeof loc, &l->callers[i]));
    if (l->callers[i].function) {
      fputs(" in ", f);
      put(f, l->callers[i].function);
    }
    fputc('\n', f);
  }
}

static bool placed(const struct location *l)
{
  return l->file || l->module;
}

static void findings(FILE *f, const struct findings *fs)
{
  char loc[4096];
  if (!fs->n) {
    fputs("Findings: none\n", f);
    return;
  }
  fprintf(f, "Findings (%zu):\n", fs->n);
  for (size_t i = 0; i < fs->n; i++) {
    const struct finding *x = &fs->v[i];
    put(f, location_text(loc, sizeof loc, &x->loc));
    fprintf(f, ": %s: [", severity_name(x->severity));
    put(f, x->kind);
    fputs("] ", f);
    put(f, x->message);
    if (x->count > 1)
      fprintf(f, " (%" PRIu64 " times)", x->count);
    if (x->loc.function) {
      fputs(" in ", f);
      put(f, x->loc.function);
    }
    fputc('\n', f);
    callers(f, &x->loc);
    for (size_t r = 0; r < x->nrelated; r++) {
      const struct related *rl = &x->related[r];
      if (placed(&rl->loc)) {
        put(f, location_text(loc, sizeof loc, &rl->loc));
        fputs(": note: ", f);
      } else {
        fputs("  note: ", f);
      }
      put(f, rl->message);
      fputc('\n', f);
      callers(f, &rl->loc);
    }
    if (x->origin_label) {
      fputs("  in ", f);
      put(f, x->origin_label);
      fputc('\n', f);
    }
    if (x->fix) {
      fputs("  fix: ", f);
      put(f, x->fix);
      fputc('\n', f);
    }
  }
}

/* "Suppressed: 3 findings (2 by FILE, 1 by --disable)", when suppressions
 * were given */
static void suppressed(FILE *f, const struct suppressed *sup)
{
  if (!sup || !sup->active)
    return;
  if (!sup->list.n) {
    fputs("Suppressed: none\n", f);
    return;
  }
  fprintf(f, "Suppressed: %zu finding%s (", sup->list.n,
          sup->list.n == 1 ? "" : "s");
  const char *sep = "";
  for (size_t i = 0; i < sup->nsources; i++) {
    if (!sup->counts[i])
      continue;
    fprintf(f, "%s%zu by ", sep, sup->counts[i]);
    put(f, sup->sources[i]);
    sep = ", ";
  }
  fputs(")\n", f);
}

static void summary(FILE *f, const struct summary *s)
{
  process(f, &s->proc);
  devices(f, s);
  streams(f, s);
  copies(f, s);
  kernels(f, s);
  syncs(f, s);
}

void output_text_summary(FILE *f, const struct summary *s)
{
  summary(f, s);
}

/* the findings shown by severity, the processes, and with suppressions
 * how many they took out */
static void tally(FILE *f, size_t n, const struct findings *fs,
                  const struct suppressed *sup)
{
  size_t by[SEV_ERROR + 1] = {0};
  for (size_t i = 0; i < fs->n; i++)
    if ((int)fs->v[i].severity >= 0 && fs->v[i].severity <= SEV_ERROR)
      by[fs->v[i].severity]++;
  fprintf(f, "\ncudalens: %zu error%s, %zu warning%s, %zu note%s in %zu"
             " process%s", by[SEV_ERROR], by[SEV_ERROR] == 1 ? "" : "s",
          by[SEV_WARNING], by[SEV_WARNING] == 1 ? "" : "s",
          by[SEV_NOTE], by[SEV_NOTE] == 1 ? "" : "s", n,
          n == 1 ? "" : "es");
  if (sup && sup->active)
    fprintf(f, " (%zu suppressed)", sup->list.n);
  fputc('\n', f);
}

void output_text(FILE *f, const struct recording *r, size_t n,
                 const struct findings *fs, const struct suppressed *sup)
{
  findings(f, fs);
  suppressed(f, sup);
  if (n == 1) {
    fputc('\n', f);
    if (r[0].text_summary)
      fputs(r[0].text_summary, f);
    else
      summary(f, &r[0].sum);
  } else {
    fprintf(f, "\nProcesses (%zu):\n", n);
    for (size_t i = 0; i < n; i++) {
      fputs("\n== ", f);
      put(f, r[i].path);
      fputs(" ==\n", f);
      if (r[i].text_summary)
        fputs(r[i].text_summary, f);
      else
        summary(f, &r[i].sum);
    }
  }
  tally(f, n, fs, sup);
}

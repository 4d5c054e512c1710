/* analyses.c - the list of analyses run by cudalens-report, in order, and
 * how they run: the list in two parts, the second (from SECOND_FROM on) on
 * a second thread with its own connection to the recording (db_open_twin:
 * it sees what the first sees) and its own call sites, started before the
 * summary is built (it does not need it), while this thread builds the
 * summary and runs the first part; the second part's findings are appended
 * after the first's, the order of one thread running them all.  The
 * analyses share the calls log and the activity, which they only read.
 * Where there can be no second connection, one thread runs them all. */
#include "checks/analyses.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model/db.h"
#include "model/stacks.h"
#include "sites/callsite.h"
#include "util.h"

const struct analysis cl_analyses[] = {
    {"host", analysis_host},
    {"transfers", analysis_transfers},
    {"pinning", analysis_pinning},
    {"syncs", analysis_syncs},
    {"devices", analysis_devices},
    {"streams", analysis_streams},
    {"races", analysis_races},
    {NULL, NULL},
};

/* the first analysis of the second part: streams and races, the two
 * costliest, cost about what the others and the summary cost together;
 * they do not read the summary (their ctx->sum is NULL) */
#define SECOND_FROM "streams"

static void run_list(struct report_ctx *ctx, struct findings *out,
                     const struct analysis *from, const struct analysis *to)
{
  for (const struct analysis *a = from; a != to && a->run; a++)
    a->run(ctx, out);
}

struct analyses_run {
  struct report_ctx *ctx;
  const struct analysis *split; /* the first of the second part */
  bool threaded;
  pthread_t th;
  /* the second part's */
  struct report_ctx ctx2;
  struct cl_db db;
  struct findings fs;
};

static void *second_main(void *arg)
{
  struct analyses_run *w = arg;
  run_list(&w->ctx2, &w->fs, w->split, NULL);
  return NULL;
}

struct analyses_run *analyses_start(struct report_ctx *ctx)
{
  struct analyses_run *w = xcalloc(1, sizeof *w);
  w->ctx = ctx;
  w->split = cl_analyses;
  while (w->split->run && strcmp(w->split->name, SECOND_FROM) != 0)
    w->split++;
  if (!w->split->run || !ctx->db->calls_log ||
      db_open_twin(ctx->db, &w->db) != 0)
    return w;
  w->db.soft = false; /* its query errors end the report, as the first's */
  w->db.calls_log = ctx->db->calls_log; /* read once, by now */
  w->ctx2 = *ctx;
  w->ctx2.db = &w->db;
  w->ctx2.sum = NULL; /* being built */
  w->ctx2.cs = stacks_callsites(&w->db);
  findings_init(&w->fs);
  if (pthread_create(&w->th, NULL, second_main, w) == 0) {
    w->threaded = true;
    return w;
  }
  callsites_free(w->ctx2.cs);
  w->db.calls_log = NULL;
  db_close(&w->db);
  return w;
}

void analyses_finish(struct analyses_run *w, struct findings *out)
{
  run_list(w->ctx, out, cl_analyses, w->threaded ? w->split : NULL);
  if (w->threaded) {
    pthread_join(w->th, NULL);
    for (size_t i = 0; i < w->fs.n; i++) {
      GROW(out->v, out->cap, out->n + 1);
      out->v[out->n++] = w->fs.v[i];
    }
    w->fs.n = 0; /* the findings are OUT's now */
    findings_free(&w->fs);
    callsites_free(w->ctx2.cs);
    w->db.calls_log = NULL; /* the first connection's */
    db_close(&w->db);
  }
  free(w);
  findings_sort(out);
  findings_fingerprint(out);
}

void run_analyses(struct report_ctx *ctx, struct findings *out)
{
  analyses_finish(analyses_start(ctx), out);
}

/* analyses.c - the list of analyses run by cudalens-report, in order, and
 * how they run: the list in two parts, the second (from SECOND_FROM on) on
 * a second thread with its own connection to the recording (db_open_twin:
 * it sees what the first sees) and its own call sites, while this thread
 * runs the first part; the second part's findings are appended after the
 * first's, the order of one thread running them all.  The analyses share
 * the calls log, the activity and the summary, which they only read.
 * Where there can be no second connection, one thread runs them all. */
#include "analyses.h"

#include <pthread.h>
#include <string.h>

#include "callsite.h"
#include "db.h"
#include "/tmp/i11r/timing.h"
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
 * costliest, cost about what the others cost together */
#define SECOND_FROM "streams"

static void run_list(struct report_ctx *ctx, struct findings *out,
                     const struct analysis *from, const struct analysis *to)
{
  for (const struct analysis *a = from; a != to && a->run; a++) {
    a->run(ctx, out);
    TMARK(a->name);
  }
}

struct second {
  struct report_ctx ctx;
  struct cl_db db;
  struct findings fs;
  const struct analysis *from;
};

static void *second_main(void *arg)
{
  struct second *w = arg;
  run_list(&w->ctx, &w->fs, w->from, NULL);
  return NULL;
}

void run_analyses(struct report_ctx *ctx, struct findings *out)
{
  const struct analysis *split = cl_analyses;
  while (split->run && strcmp(split->name, SECOND_FROM) != 0)
    split++;
  struct second w;
  pthread_t th;
  bool threaded = split->run && ctx->db->calls_log &&
                  db_open_twin(ctx->db, &w.db) == 0;
  if (threaded) {
    w.db.soft = false; /* its query errors end the report, as this one's */
    w.db.calls_log = ctx->db->calls_log; /* read once, by now */
    w.ctx = *ctx;
    w.ctx.db = &w.db;
    w.ctx.cs = callsites_new(w.db.db);
    w.from = split;
    findings_init(&w.fs);
    if (pthread_create(&th, NULL, second_main, &w) != 0) {
      callsites_free(w.ctx.cs);
      w.db.calls_log = NULL;
      db_close(&w.db);
      threaded = false;
    }
  }
  run_list(ctx, out, cl_analyses, threaded ? split : NULL);
  if (threaded) {
    pthread_join(th, NULL);
    for (size_t i = 0; i < w.fs.n; i++) {
      GROW(out->v, out->cap, out->n + 1);
      out->v[out->n++] = w.fs.v[i];
    }
    w.fs.n = 0; /* the findings are out's now */
    findings_free(&w.fs);
    callsites_free(w.ctx.cs);
    w.db.calls_log = NULL; /* ctx->db's */
    db_close(&w.db);
  }
  findings_sort(out);
  findings_fingerprint(out);
}

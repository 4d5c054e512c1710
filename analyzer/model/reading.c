/* reading.c - the reading of a recording spread over the machine's cores:
 * while this thread reads the calls with the tables merged into them (the
 * calls log, replay.c), a second thread reads the kernels table for it
 * (handed over in chunks), then the activity table and kernel_args, the
 * two other large tables, on a second connection that sees the same
 * recording (db_open_twin).  When there can be no second
 * connection, or it fails (an error it hit, which the first connection then
 * meets and reports as it always did), everything is read on the first. */
#include "model/reading.h"

#include <pthread.h>
#include <string.h>

#include "model/replay.h"

struct second {
  struct cl_db db;            /* the twin connection */
  struct activity act;
  struct replay_args *args;
  struct kernel_feed *feed;   /* the kernels rows, for this thread */
};

static void *second_main(void *arg)
{
  struct second *w = arg;
  kernel_feed_read(w->feed, &w->db);
  activity_load(&w->act, &w->db);
  if (!w->db.failed)
    w->args = replay_args_read(&w->db);
  return NULL;
}

void recording_read(struct cl_db *db, struct activity *act)
{
  struct second w;
  pthread_t th;
  bool threaded = db_open_twin(db, &w.db) == 0;
  if (threaded) {
    memset(&w.act, 0, sizeof w.act);
    w.args = NULL;
    w.feed = kernel_feed_new();
    if (pthread_create(&th, NULL, second_main, &w) != 0) {
      db_close(&w.db);
      kernel_feed_free(w.feed);
      threaded = false;
    }
  }
  if (threaded)
    replay_read_calls_fed(db, w.feed);
  else
    replay_read_calls(db);
  if (threaded) {
    pthread_join(th, NULL);
    kernel_feed_free(w.feed);
    bool ok = !w.db.failed;
    db_close(&w.db);
    if (ok) {
      *act = w.act;
      replay_set_args(db, w.args);
      return;
    }
    activity_free(&w.act);
    replay_args_free(w.args);
  }
  activity_load(act, db);
  replay_set_args(db, NULL);
}

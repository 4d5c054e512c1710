/* reading.c - the reading of a recording spread over the machine's cores:
 * while this thread reads the calls with the tables merged into them (the
 * calls log, replay.c), a second thread reads the activity table and
 * kernel_args, the two other large tables, on a second connection that
 * sees the same recording (db_open_twin).  When there can be no second
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
};

static void *second_main(void *arg)
{
  struct second *w = arg;
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
    if (pthread_create(&th, NULL, second_main, &w) != 0) {
      db_close(&w.db);
      threaded = false;
    }
  }
  replay_read_calls(db);
  if (threaded) {
    pthread_join(th, NULL);
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

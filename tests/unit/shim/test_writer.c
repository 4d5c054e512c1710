/* test_writer.c - unit test of the record path without CUDA: several threads
 * push call records through their rings into the writer thread, with rings
 * far smaller than the load.  With CUDALENS_OVERFLOW=block every record must
 * reach the database; with drop, rows plus counted drops must add up.  Also
 * checks that identical call stacks are stored once. */
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include "shim/cupti.h"
#include "shim/ring.h"
#include "shim/writer.h"
#include "../unit.h"
#include "../unit_db.h"

#define THREADS 4
#define PER_THREAD 20000

static CUptiResult fake_timestamp(uint64_t *t)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  *t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  return CUPTI_SUCCESS;
}


static void *producer(void *arg)
{
  int memcpy_api = cl_api_named("cudaMemcpyAsync_v3020");
  for (int i = 0; i < PER_THREAD; i++) {
    struct cl_record *r = cl_ring_reserve(CL_REC_CALL);
    if (!r)
      continue;
    r->type = CL_REC_CALL;
    struct cl_call *c = &r->u.call;
    memset(c, 0, sizeof *c);
    c->seq = cl_next_seq();
    c->api = (uint32_t)memcpy_api;
    c->tid = cl_gettid();
    c->device = 0;
    c->a.dst = 0x1000;
    c->a.src = 0x2000;
    c->a.bytes = 4096;
    c->a.dir = CL_DIR_HTOD;
    c->a.stream = (uint64_t)(uintptr_t)arg;
    c->nframes = 2; /* two distinct stacks across all threads */
    c->frames[0] = (uint64_t)(uintptr_t)&producer + (uint64_t)(i & 1);
    c->frames[1] = (uint64_t)(uintptr_t)&query;
    cl_ring_commit();
  }
  return NULL;
}

int main(int argc, char **argv)
{
  int drop = argc > 1 && !strcmp(argv[1], "drop");
  char dir[] = "/tmp/cl-writer-XXXXXX", pattern[256], path[300];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(pattern, sizeof pattern, "%s/w-%%p.db", dir);
  setenv("CUDALENS_OUTPUT", pattern, 1);
  setenv("CUDALENS_BUFFER_RECORDS", "64", 1);
  setenv("CUDALENS_FLUSH_MS", "10", 1);
  setenv("CUDALENS_OVERFLOW", drop ? "drop" : "block", 1);
  cl_config_load();
  cl_cupti.cuptiGetTimestamp = fake_timestamp;

  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, producer, (void *)(i + 16));
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  cl_writer_stop(1);

  snprintf(path, sizeof path, "%s/w-%d.db", dir, (int)getpid());
  sqlite3 *db;
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
  long long calls = query(db, "SELECT count(*) FROM calls");
  long long dropped =
      query(db, "SELECT coalesce(sum(count),0) FROM drops");
  long long distinct = query(db, "SELECT count(DISTINCT seq) FROM calls");
  long long transfers = query(db, "SELECT count(*) FROM transfers");
  long long stacks = query(db, "SELECT count(*) FROM stacks");
  long long version = query(db, "PRAGMA user_version");
  long long clean = query(db, "SELECT value FROM meta WHERE key='clean_exit'");
  printf("calls=%lld dropped=%lld stacks=%lld\n", calls, dropped, stacks);
  CHECK(version == CL_SCHEMA_VERSION);
  CHECK(clean == 1);
  CHECK(distinct == calls);
  CHECK(transfers == calls);
  CHECK(stacks == 2);
  if (drop) {
    CHECK(calls + dropped == THREADS * PER_THREAD);
  } else {
    CHECK(calls == THREADS * PER_THREAD);
    CHECK(dropped == 0);
  }
  CHECK(query(db, "SELECT count(*) FROM calls WHERE stream NOT BETWEEN 16 AND 19") == 0);
  sqlite3_close(db);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  UNIT_DONE();
}

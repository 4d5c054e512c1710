/* test_writer.c - unit test of the record path without CUDA: several threads
 * push call records through their rings into the writer thread, with rings
 * far smaller than the load.  With CUDALENS_OVERFLOW=block every record must
 * reach the database; with drop, rows plus counted drops must add up.  Every
 * 8th record is a launch of 200 argument words, 184 of them in the records
 * after it (cl_ring_put_kargs): each must arrive whole and in order, or,
 * with drop, cut and counted.  Also checks that identical call stacks are
 * stored once. */
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include "cudalens/format.h"
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


#define WORDS 200 /* a launch's: 16 in its record, 184 in the 4 after it */
#define WORD(k) (0x7f0000000000ull + 8 * (uint64_t)(k))

/* R as a call of API on STREAM, with stack STACK (0 or 1: two distinct
 * stacks across all threads) */
static struct cl_call *call(struct cl_record *r, int api, void *stream,
                            int stack);

/* C's WORDS argument words, 184 of them in the records after its record:
 * how many such records */
static unsigned launch_words(struct cl_call *c)
{
  static _Thread_local struct cl_karg words[WORDS];
  for (unsigned k = 0; k < WORDS; k++)
    words[k] = (struct cl_karg){0, (uint16_t)(8 * k), 1, 0, 0, WORD(k)};
  memcpy(c->kargs, words, CL_MAX_KARGS * sizeof *words);
  unsigned kept;
  unsigned slots = cl_ring_put_kargs(words + CL_MAX_KARGS, WORDS - CL_MAX_KARGS,
                                     &kept);
  c->nkargs = (uint16_t)(CL_MAX_KARGS + kept);
  c->kargs_truncated = c->nkargs < WORDS;
  return slots;
}

static void *producer(void *arg)
{
  int memcpy_api = cl_api_named("cudaMemcpyAsync_v3020");
  int launch_api = cl_api_named("cudaLaunchKernel_v7000");
  for (int i = 0; i < PER_THREAD; i++) {
    struct cl_record *r = cl_ring_reserve(CL_REC_CALL);
    if (!r)
      continue;
    unsigned more = 0; /* records after it, committed with it */
    if (i % 8 == 7) {
      more = launch_words(call(r, launch_api, arg, i & 1));
    } else {
      struct cl_call *c = call(r, memcpy_api, arg, i & 1);
      c->a.dst = 0x1000;
      c->a.src = 0x2000;
      c->a.bytes = 4096;
      c->a.dir = CL_DIR_HTOD;
    }
    cl_ring_commit_n(1 + more);
  }
  return NULL;
}

static struct cl_call *call(struct cl_record *r, int api, void *stream,
                            int stack)
{
  r->type = CL_REC_CALL;
  struct cl_call *c = &r->u.call;
  memset(c, 0, sizeof *c);
  c->seq = cl_next_seq();
  c->api = (uint32_t)api;
  c->tid = cl_gettid();
  c->device = 0;
  c->a.stream = (uint64_t)(uintptr_t)stream;
  c->nframes = 2;
  c->frames[0] = (uint64_t)(uintptr_t)&producer + (uint64_t)stack;
  c->frames[1] = (uint64_t)(uintptr_t)&query;
  return c;
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
  long long dropped = query(db, "SELECT coalesce(sum(count),0) FROM drops "
                                "WHERE reason <> 'kernel-args-beyond-limit'");
  long long cut = query(db, "SELECT coalesce(sum(count),0) FROM drops "
                            "WHERE reason = 'kernel-args-beyond-limit'");
  long long launches = query(db, "SELECT count(*) FROM kernels");
  /* each launch's words: the first n of its WORDS, in order */
  long long whole = 0, cut_rows = 0, wrong = 0;
  sqlite3_stmt *st;
  CHECK(sqlite3_prepare_v2(db, "SELECT args FROM launch_args", -1, &st, NULL) ==
        SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char *b = sqlite3_column_blob(st, 0);
    int n = sqlite3_column_bytes(st, 0) / CL_LAUNCH_ARG_SIZE;
    whole += n == WORDS;
    cut_rows += n >= CL_MAX_KARGS && n < WORDS;
    for (int k = 0; k < n; k++) {
      unsigned param, offset, flags;
      unsigned long long value;
      cl_launch_arg_get(b + k * CL_LAUNCH_ARG_SIZE, &param, &offset, &flags,
                        &value);
      wrong += param != 0 || offset != 8u * (unsigned)k || value != WORD(k);
    }
  }
  sqlite3_finalize(st);
  long long distinct = query(db, "SELECT count(DISTINCT seq) FROM calls");
  long long transfers = query(db, "SELECT count(*) FROM transfers");
  printf("launches=%lld whole=%lld cut=%lld (counted %lld) wrong words=%lld\n",
         launches, whole, cut_rows, cut, wrong);
  CHECK(wrong == 0);
  CHECK(whole + cut_rows == launches && cut_rows == cut);
  long long stacks = query(db, "SELECT count(*) FROM stacks");
  long long version = query(db, "PRAGMA user_version");
  long long clean = query(db, "SELECT value FROM meta WHERE key='clean_exit'");
  printf("calls=%lld dropped=%lld stacks=%lld\n", calls, dropped, stacks);
  CHECK(version == CL_SCHEMA_VERSION);
  CHECK(clean == 1);
  CHECK(distinct == calls);
  CHECK(transfers + launches == calls);
  CHECK(stacks == 2);
  if (drop) {
    CHECK(calls + dropped == THREADS * PER_THREAD);
  } else {
    CHECK(calls == THREADS * PER_THREAD);
    CHECK(dropped == 0 && cut == 0 && launches == THREADS * PER_THREAD / 8);
  }
  CHECK(query(db, "SELECT count(*) FROM calls WHERE stream NOT BETWEEN 16 AND 19") == 0);
  sqlite3_close(db);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  UNIT_DONE();
}

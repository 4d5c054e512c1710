/* test_writer_rows.c - unit test of the rows writer_db.c makes of records,
 * through its batched multi-row inserts: every field of every row as put,
 * when values change between NULL, numbers and text from row to row (only
 * changed cells are bound again), in batches cut at any place by commits;
 * and a row that SQLite refuses (a call with a seq already written) costs
 * itself only, not the rows batched with it. */
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include "shim/cupti.h"
#include "shim/writer_db.h"
#include "../unit.h"
#include "../unit_db.h"

#define CALLS 203 /* not a multiple of the batch */

static CUptiResult fake_timestamp(uint64_t *t)
{
  *t = 12345;
  return CUPTI_SUCCESS;
}

/* call i: a launch when i is even, a copy or a memset when odd, with
 * fields that come and go */
static void make_call(struct cl_record *r, unsigned i, int launch, int copy,
                      int memset_)
{
  memset(r, 0, sizeof *r);
  r->type = CL_REC_CALL;
  struct cl_call *c = &r->u.call;
  c->seq = i + 1;
  c->tid = 7;
  c->start_ns = 1000 * i;
  c->end_ns = 1000 * i + 500;
  c->device = i % 3 ? 0 : -1;
  c->context = i % 5 ? 1 : 0;
  c->correlation = i + 1;
  c->driver_correlation = i % 7 ? 0 : i + 1000;
  c->pystack = i % 4 ? 0 : 9;
  c->a.stream = i % 2 ? 0x500 : 0;
  if (i % 2 == 0) {
    c->api = (uint32_t)launch;
    c->name = i % 6 ? 3 : 0;
    c->a.grid[0] = i;
    c->a.grid[1] = c->a.grid[2] = 1;
    c->a.block[0] = 32;
    c->a.block[1] = c->a.block[2] = 1;
    c->nkargs = (uint8_t)(i % 4);
    for (unsigned k = 0; k < c->nkargs; k++) {
      c->kargs[k].param = (uint16_t)k;
      c->kargs[k].value = 0x7000 + i * 16 + k;
    }
    if (i % 8 == 7) {
      /* out of order, and a word given twice: its first value kept */
      for (unsigned k = 0; k < 3; k++) {
        c->kargs[k].param = (uint16_t)(2 - k);
        c->kargs[k].value = 0x7000 + i * 16 + 2 - k;
      }
      c->kargs[3] = c->kargs[1];
      c->kargs[3].value = 1;
      c->nkargs = 4;
    }
  } else {
    c->api = (uint32_t)(i % 3 == 1 ? copy : memset_);
    c->a.dst = 0x9000 + i;
    c->a.src = 0x8000 + i;
    c->a.bytes = 64 * i;
    c->a.value = i & 0xff;
    c->a.dir = i % 5 ? CL_DIR_HTOD : CL_DIR_DTOH;
  }
}

static void make_activity(struct cl_record *r, unsigned i)
{
  memset(r, 0, sizeof *r);
  r->type = CL_REC_ACTIVITY;
  struct cl_activity *x = &r->u.act;
  x->kind = i % 2 ? CL_ACT_MEMCPY : CL_ACT_KERNEL;
  x->correlation = i + 1;
  x->start_ns = 2000 * i;
  x->end_ns = 2000 * i + 100;
  x->context = 1;
  x->stream_id = 13 + i % 2;
  x->bytes = 64 * i;
  x->copy_kind = (uint8_t)(i % 3 ? 1 : 2);
  x->src_kind = 2;
  x->dst_kind = 3;
  x->src_device = i % 2 ? -1 : 0;
  x->dst_device = -1;
  x->name = i % 2 ? 0 : 3;
}

int main(void)
{
  char dir[] = "/tmp/cl-rows-XXXXXX", path[300];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/rows.db", dir);
  setenv("CUDALENS_OUTPUT", path, 1);
  cl_config_load();
  cl_cupti.cuptiGetTimestamp = fake_timestamp;
  int launch = cl_api_named("cudaLaunchKernel_v7000");
  int copy = cl_api_named("cudaMemcpyAsync_v3020");
  int memset_ = cl_api_named("cudaMemsetAsync_v3020");
  CHECK(launch >= 0 && copy >= 0 && memset_ >= 0);

  struct cl_db *db = cl_db_open();
  CHECK(db != NULL);
  if (!db)
    return 1;
  struct cl_record r;
  unsigned cut = 0;
  CHECK(cl_db_begin(db) == 0);
  for (unsigned i = 0; i < CALLS; i++) {
    make_call(&r, i, launch, copy, memset_);
    cl_db_put(db, &r, NULL);
    make_activity(&r, i);
    cl_db_put(db, &r, NULL);
    if (i == 100) { /* a seq written before: that row only is refused */
      make_call(&r, 40, launch, copy, memset_);
      cl_db_put(db, &r, NULL);
    }
    /* transactions end anywhere in a batch; none from 80 to 199, so that
     * the refused row is in a full batch (of up to 64 rows) */
    if (i % 37 == 36 && (i < 80 || i >= 200)) {
      CHECK(cl_db_commit(db) == 0);
      CHECK(cl_db_begin(db) == 0);
      cut++;
    }
  }
  CHECK(cl_db_commit(db) == 0);
  cl_db_close(db, "exit", 1);

  sqlite3 *s;
  CHECK(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
  CHECK(query(s, "SELECT count(*) FROM calls") == CALLS);
  CHECK(query(s, "SELECT count(*) FROM activity") == CALLS);
  CHECK(query(s, "SELECT count(*) FROM kernels") == (CALLS + 1) / 2);
  CHECK(query(s, "SELECT count(*) FROM transfers") == CALLS / 2);
  /* every field, as make_call and make_activity made it */
  char sql[2048];
  snprintf(sql, sizeof sql,
           "SELECT count(*) FROM calls WHERE tid=7 AND start_ns=1000*(seq-1)"
           " AND end_ns=start_ns+500 AND result=0"
           " AND device IS (CASE WHEN (seq-1)%%3 THEN 0 END)"
           " AND context IS (CASE WHEN (seq-1)%%5 THEN 1 END)"
           " AND correlation=seq"
           " AND driver_correlation IS (CASE WHEN (seq-1)%%7=0 THEN seq+999 END)"
           " AND pystack IS (CASE WHEN (seq-1)%%4=0 THEN 9 END)"
           " AND api=(CASE WHEN (seq-1)%%2=0 THEN %d"
           " WHEN (seq-1)%%3=1 THEN %d ELSE %d END)"
           " AND stack IS NULL"
           " AND stream=(CASE WHEN (seq-1)%%2 THEN 1280 ELSE 0 END)",
           launch, copy, memset_);
  CHECK(query(s, sql) == CALLS);
  CHECK(query(s, "SELECT count(*) FROM kernels WHERE grid_x=seq-1"
                 " AND grid_y=1 AND grid_z=1 AND block_x=32 AND block_y=1"
                 " AND block_z=1 AND shared_mem=0 AND stream=0"
                 " AND name IS (CASE WHEN (seq-1)%6 THEN 3 END)") ==
        (CALLS + 1) / 2);
  CHECK(query(s, "SELECT count(*) FROM kernel_args") ==
        query(s, "SELECT sum((seq-1)%4) FROM kernels"));
  /* one launch_args row a launch with arguments (the view above reads it) */
  CHECK(query(s, "SELECT count(*) FROM launch_args") ==
        query(s, "SELECT count(*) FROM kernels WHERE (seq-1)%4 > 0"));
  CHECK(query(s, "SELECT count(*) FROM launch_args WHERE length(args) !="
                 " 13 * ((seq-1)%4)") == 0);
  /* each launch's words in (param, offset) order */
  CHECK(query(s, "SELECT count(*) FROM launch_args WHERE length(args) >= 26"
                 " AND (substr(args, 1, 4) >= substr(args, 14, 4) OR"
                 " (length(args) >= 39 AND"
                 "  substr(args, 14, 4) >= substr(args, 27, 4)))") == 0);
  CHECK(query(s, "SELECT count(*) FROM kernel_args WHERE"
                 " value=28672+(seq-1)*16+param AND offset=0") ==
        query(s, "SELECT count(*) FROM kernel_args"));
  CHECK(query(s, "SELECT count(*) FROM transfers WHERE dst=36864+seq-1"
                 " AND bytes=64*(seq-1) AND async=1 AND stream=1280"
                 " AND src_device IS dst_device"
                 " AND src_device IS (CASE WHEN (seq-1)%3 THEN 0 END)"
                 " AND ((op='copy' AND src=32768+seq-1 AND value IS NULL"
                 "       AND direction=(CASE WHEN (seq-1)%5 THEN 'htod'"
                 "                      ELSE 'dtoh' END))"
                 "   OR (op='memset' AND src IS NULL AND direction IS NULL"
                 "       AND value=(seq-1)%256))") == CALLS / 2);
  CHECK(query(s, "SELECT count(*) FROM activity WHERE rowid=correlation"
                 " AND start_ns=2000*(correlation-1) AND end_ns=start_ns+100"
                 " AND device=0 AND context=1"
                 " AND stream_id=13+(correlation-1)%2"
                 " AND src_device IS (CASE WHEN (correlation-1)%2=0"
                 "                    THEN 0 END) AND dst_device IS NULL"
                 " AND ((kind='kernel' AND name=3 AND bytes IS NULL"
                 "       AND copy_kind IS NULL AND src_kind IS NULL"
                 "       AND dst_kind IS NULL)"
                 "   OR (kind='memcpy' AND name IS NULL"
                 "       AND bytes=64*(correlation-1)"
                 "       AND copy_kind=(CASE WHEN (correlation-1)%3 THEN"
                 "                      'htod' ELSE 'dtoh' END)"
                 "       AND src_kind='pinned' AND dst_kind='device'))") ==
        CALLS);
  printf("%u commits inside the puts, rows checked\n", cut);
  sqlite3_close(s);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  UNIT_DONE();
}

/* writer_rate.c - how many records a second the shim's writer turns into
 * rows: synthetic records fed straight through writer_db.c (cl_db_put in one
 * transaction per batch, as a drain of the writer thread does) into a real
 * recording, no CUDA, no rings.  Mixes: "launch" (a kernel launch call with
 * 0-3 pointer arguments and its kernel activity record) and "copy" (an async
 * copy call and its memcpy activity record) and "poll" (a cudaStreamQuery
 * that is often not ready and a cudaEventRecord), and "mixed" (the three in
 * turn, two launches for a copy and a poll: all the common kinds of records
 * in one stream); call stacks drawn from a pool.  With --deferred, a
 * launch's pointer words are left for the writer, as most launches' are
 * (kparams.c), and resolved before the put against a map of 64
 * allocations, as a drain does: what resolving costs the writer.
 * Prints records/s and rows/s of the puts and commits, by the clock and per
 * CPU second (steadier on a shared machine), then what creating the
 * recording and closing it (the indexes) cost.  See bench/README.md, "The writer". */
#include <getopt.h>
#include <time.h>
#include <unistd.h>

#include "cudalens/xorshift.h"
#include "shim/cupti.h"
#include "shim/kparams.h"
#include "shim/writer_db.h"

#define STACKS 300 /* distinct call stacks of the program */
#define NAMES 40   /* distinct kernel names */

static int deferred; /* --deferred */

static uint64_t mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static CUptiResult fake_timestamp(uint64_t *t)
{
  *t = mono_ns();
  return CUPTI_SUCCESS;
}

static int api_index(const char *name)
{
  int i = cl_api_named(name);
  if (i < 0) {
    fprintf(stderr, "writer_rate: no API %s\n", name);
    exit(2);
  }
  return i;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void)
{
  return cl_xorshift64(&rng);
}

/* stacks of 12-24 return addresses inside this program, so that the writer
 * finds them in a known module as it would a real program's */
static uint64_t stack_frames[STACKS][CL_MAX_FRAMES];
static uint8_t stack_depth[STACKS];
static uint32_t names[NAMES];

static void make_pools(void)
{
  uint64_t text = (uint64_t)(uintptr_t)&make_pools;
  for (int s = 0; s < STACKS; s++) {
    stack_depth[s] = (uint8_t)(12 + next_random() % 13);
    for (int f = 0; f < stack_depth[s]; f++)
      stack_frames[s][f] = text + next_random() % 2048;
  }
  for (int i = 0; i < NAMES; i++) {
    char name[64];
    snprintf(name, sizeof name, "_Z%dkernel_%dPfS_i", 8 + i / 10, i);
    names[i] = cl_intern(name);
  }
}

struct counts {
  uint64_t calls, activity, rows;
};

static uint64_t seq;

static void fill_call(struct cl_call *c, uint32_t api, uint64_t t)
{
  memset(c, 0, sizeof *c);
  c->seq = ++seq;
  c->api = api;
  c->tid = 4242;
  c->start_ns = t;
  c->end_ns = t + 2000 + next_random() % 3000;
  c->device = 0;
  c->context = 1;
  c->correlation = (uint32_t)seq;
  int s = (int)(next_random() % STACKS);
  c->nframes = stack_depth[s];
  memcpy(c->frames, stack_frames[s], c->nframes * sizeof c->frames[0]);
}

static void fill_activity(struct cl_activity *x, const struct cl_call *c,
                          uint8_t kind, uint32_t name, uint64_t bytes)
{
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->correlation = c->correlation;
  x->device = 0;
  x->context = 1;
  x->stream_id = 13 + (uint32_t)(c->seq & 1);
  x->name = name;
  x->src_device = x->dst_device = -1;
  x->start_ns = c->end_ns + 5000;
  x->end_ns = x->start_ns + 1500;
  x->bytes = bytes;
  if (kind == CL_ACT_MEMCPY) {
    x->copy_kind = 1; /* htod */
    x->src_kind = 2;  /* pinned */
    x->dst_kind = 3;  /* device */
  }
}

/* One call record and its activity record into r[0] and r[1]. */
static void make_launch(struct cl_record r[2], uint32_t api, uint64_t t,
                        struct counts *n)
{
  struct cl_call *c = &r[0].u.call;
  r[0].type = CL_REC_CALL;
  fill_call(c, api, t);
  c->a.stream = 0x5500000 + (c->seq & 1) * 0x100;
  c->a.handle = 0x401000 + (c->seq % NAMES) * 64;
  c->name = names[c->seq % NAMES];
  c->a.grid[0] = 1024;
  c->a.grid[1] = c->a.grid[2] = 1;
  c->a.block[0] = 256;
  c->a.block[1] = c->a.block[2] = 1;
  c->nkargs = (uint16_t)(c->seq % 4);
  for (unsigned i = 0; i < c->nkargs; i++) {
    c->kargs[i].param = (uint16_t)i;
    c->kargs[i].value = 0x7f0000000000ull + (next_random() % 64) * 0x100000;
    c->kargs[i].unresolved = deferred ? CL_KARG_MAYBE_ALLOC : 0;
  }
  c->kargs_deferred = deferred && c->nkargs;
  c->kargs_gen = cl_kparams_gen();
  r[1].type = CL_REC_ACTIVITY;
  fill_activity(&r[1].u.act, c, CL_ACT_KERNEL, c->name, 0);
  n->calls++;
  n->activity++;
  n->rows += 3 + (c->nkargs > 0); /* calls, kernels, activity, launch_args */
}

static void make_copy(struct cl_record r[2], uint32_t api, uint64_t t,
                      struct counts *n)
{
  struct cl_call *c = &r[0].u.call;
  r[0].type = CL_REC_CALL;
  fill_call(c, api, t);
  c->a.stream = 0x5500000 + (c->seq & 1) * 0x100;
  c->a.dst = 0x7f0000000000ull + (c->seq % 64) * 0x100000;
  c->a.src = 0x7e0000000000ull + (c->seq % 64) * 0x100000;
  c->a.bytes = c->seq % 8 ? 262144 : 4194304;
  c->a.dir = CL_DIR_HTOD;
  c->a.memkind = CL_MEMKIND_PINNED;
  r[1].type = CL_REC_ACTIVITY;
  fill_activity(&r[1].u.act, c, CL_ACT_MEMCPY, 0, c->a.bytes);
  n->calls++;
  n->activity++;
  n->rows += 3; /* calls, transfers, activity */
}

/* A polling cudaStreamQuery (its calls and syncs rows, no GPU activity) and
 * a cudaEventRecord (calls, event_records): two records. */
static void make_poll(struct cl_record r[2], uint32_t api[2], uint64_t t,
                      struct counts *n)
{
  for (int i = 0; i < 2; i++) {
    struct cl_call *c = &r[i].u.call;
    r[i].type = CL_REC_CALL;
    fill_call(c, api[i], t + 2500 * (uint64_t)i);
    c->a.stream = 0x5500000;
    c->a.event = 0x6600000 + (c->seq % 8) * 0x40;
    c->result = i == 0 && (c->seq / 2) % 4 ? 600 : 0; /* cudaErrorNotReady */
  }
  n->calls += 2;
  n->rows += 4;
}

static void usage(void)
{
  fprintf(stderr, "usage: writer_rate [--mix launch|copy|poll|mixed] [--batch N] "
                  "[--deferred] OUT.db RECORDS\n");
  exit(2);
}

int main(int argc, char **argv)
{
  static const struct option longopts[] = {
      {"mix", required_argument, NULL, 'm'},
      {"batch", required_argument, NULL, 'b'},
      {"deferred", no_argument, NULL, 'd'},
      {NULL, 0, NULL, 0}};
  const char *mix = "launch";
  long batch = 4096;
  for (int o; (o = getopt_long(argc, argv, "", longopts, NULL)) != -1;) {
    if (o == 'm')
      mix = optarg;
    else if (o == 'b')
      batch = atol(optarg);
    else if (o == 'd')
      deferred = 1;
    else
      usage();
  }
  if (argc - optind != 2 || batch < 2 ||
      (strcmp(mix, "launch") && strcmp(mix, "copy") && strcmp(mix, "poll") &&
       strcmp(mix, "mixed")))
    usage();
  const char *out = argv[optind];
  long records = atol(argv[optind + 1]);
  if (records < 2)
    usage();
  int launch = !strcmp(mix, "launch"), poll = !strcmp(mix, "poll");
  int mixed = !strcmp(mix, "mixed");
  if (!access(out, F_OK)) {
    fprintf(stderr, "writer_rate: %s exists\n", out);
    return 2;
  }
  setenv("CUDALENS_OUTPUT", out, 1);
  cl_config_load();
  cl_cupti.cuptiGetTimestamp = fake_timestamp;
  cl_start_ns = mono_ns();
  make_pools();
  for (uint64_t i = 0; deferred && i < 64; i++)
    cl_allocmap_add(0x7f0000000000ull + i * 0x100000, 0x100000,
                    CL_MEMKIND_DEVICE, 0, 0);
  uint32_t launch_api = (uint32_t)api_index("cudaLaunchKernel_v7000");
  uint32_t copy_api = (uint32_t)api_index("cudaMemcpyAsync_v3020");
  uint32_t poll_api[2] = {(uint32_t)api_index("cudaStreamQuery_v3020"),
                          (uint32_t)api_index("cudaEventRecord_v3020")};

  uint64_t open_ns = mono_ns();
  struct cl_db *db = cl_db_open();
  if (!db)
    return 1;
  open_ns = mono_ns() - open_ns;
  /* the records of one drain, made before the clock starts */
  struct cl_record *recs = calloc((size_t)batch, sizeof *recs);
  if (!recs)
    return 1;
  struct counts n = {0, 0, 0};
  uint64_t put_ns = 0, put_cpu_ns = 0, t = mono_ns();
  unsigned turn = 0; /* mixed: launch, launch, copy, poll */
  for (long done = 0; done < records;) {
    long k = 0;
    for (; k + 1 < batch && done + k + 1 < records + 1; k += 2) {
      unsigned kind = mixed ? "\0\0\1\2"[turn++ % 4] : launch ? 0 : poll ? 2 : 1;
      if (kind == 2)
        make_poll(&recs[k], poll_api, t, &n);
      else if (kind == 0)
        make_launch(&recs[k], launch_api, t, &n);
      else
        make_copy(&recs[k], copy_api, t, &n);
      t += 7000;
    }
    uint64_t t0 = mono_ns(), c0 = cpu_ns();
    if (cl_db_begin(db))
      return 1;
    for (long i = 0; i < k; i++) {
      struct cl_call *c = &recs[i].u.call;
      if (recs[i].type == CL_REC_CALL && c->kargs_deferred) {
        /* (as writer.c's words_of) */
        c->nkargs = (uint16_t)cl_kparams_resolve(c->kargs, c->nkargs,
                                                 c->kargs_gen, c->kargs_code);
        c->kargs_deferred = 0;
      }
      cl_db_put(db, &recs[i], NULL);
    }
    if (cl_db_commit(db))
      return 1;
    put_ns += mono_ns() - t0;
    put_cpu_ns += cpu_ns() - c0;
    done += k;
  }
  uint64_t t0 = mono_ns();
  cl_db_close(db, "exit", 1);
  uint64_t close_ns = mono_ns() - t0;
  free(recs);
  double s = (double)put_ns / 1e9;
  uint64_t recorded = n.calls + n.activity;
  printf("writer_rate: %s mix%s, %llu records (%llu calls, %llu activity), "
         "%llu rows, batches of %ld\n",
         mix, deferred ? " (arguments deferred)" : "", (unsigned long long)recorded, (unsigned long long)n.calls,
         (unsigned long long)n.activity, (unsigned long long)n.rows, batch);
  printf("  put+commit %.3f s: %.0f records/s, %.0f rows/s (%.0f ns/record)\n",
         s, (double)recorded / s, (double)n.rows / s,
         (double)put_ns / (double)recorded);
  double cs = (double)put_cpu_ns / 1e9;
  printf("  per CPU second (user+system %.3f s): %.0f records/s, %.0f rows/s\n",
         cs, (double)recorded / cs, (double)n.rows / cs);
  printf("  open (schema, meta, api table) %.3f s, close (indexes, one file) "
         "%.3f s\n", (double)open_ns / 1e9, (double)close_ns / 1e9);
  return 0;
}

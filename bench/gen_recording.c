/* gen_recording.c - writes a large synthetic recording shaped like a
 * PyTorch training run, for timing cudalens-report at scale (see
 * bench/report_scale.sh and bench/README.md).  No GPU needed.
 *
 *   gen_recording [--layers L] [--seed S] [--no-plant]
 *                 [--rank R --nranks N [--mismatch STEP]] OUT.db EVENTS
 *
 * The recording has the schema the shim writes (CL_SCHEMA_SQL, user_version
 * CL_SCHEMA_VERSION, the activity index built at close) and what a training
 * loop of L layers (default 64) records, step after step until EVENTS calls
 * (rows of `calls`) are written:
 *
 *   - the main thread and an autograd thread (backward), joined by a
 *     thread_edges `create` row;
 *   - the legacy default stream (compute), a non-blocking copy stream (the
 *     data loader's H2D copies of a pinned batch) and a non-blocking side
 *     stream (an EMA of the weights), ordered by event record/wait;
 *   - per step: a forward (2 kernels a layer, pointers to
 *     activations and weights), zero_grad (a memset a layer), a backward
 *     (2 kernels a layer, on the autograd thread), the prefetch of the next batch
 *     (2 H2D copies), an optimizer (a kernel a layer), the EMA kernels, loss.item() (a D2H copy to pageable memory
 *     and a stream synchronization), an event query; an allocation and a
 *     free every 50 steps, a device synchronization every 1000;
 *   - GPU activity rows for every kernel, copy and memset;
 *   - a few hundred distinct native stacks (cudart, libtorch_cuda,
 *     libtorch_python, python, and for a tenth of the kernels this program
 *     itself, with its build id, so that symbolization reads a real file)
 *     and Python stacks.
 *
 * Unless --no-plant, two races are planted: at step 3 the side stream skips
 * its wait for the optimizer (stream-race: EMA reads the weights the
 * optimizer writes), at step 5 the copy stream skips its wait for the
 * backward before prefetching the next batch (stream-race: the copy
 * overwrites the input the backward still reads).
 *
 * With --rank R --nranks N the recording is rank R of a data-parallel job
 * of N ranks (meta rank R, pid 4242 + R): after each backward the
 * gradients are all-reduced (ncclAllReduce on the compute stream, a
 * collectives row of communicator id 0xc011, in ddp.py).  With --mismatch
 * STEP this rank's all-reduce of that step has one element more than the
 * others' (collective-mismatch).  N recordings of ranks 0..N-1 make a job
 * for bench/report_scale.sh --ranks. */
#define _GNU_SOURCE
#include <link.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudalens/buildid.h"
#include "cudalens/format.h"
#include "cudalens/xorshift.h"

/* ---- the api table (names as the shim writes them) ---------------------- */
enum api {
  A_MALLOC, A_FREE, A_MALLOC_HOST, A_STREAM_CREATE, A_EVENT_CREATE,
  A_LAUNCH, A_MEMCPY_ASYNC, A_MEMSET_ASYNC, A_EVENT_RECORD, A_STREAM_WAIT,
  A_STREAM_SYNC, A_EVENT_QUERY, A_DEVICE_SYNC, A_SET_DEVICE, A_ALLREDUCE,
  A_COUNT
};
static const struct { const char *name; int cbid; const char *op; } apis[] = {
    {"cudaMalloc_v3020", 20, "alloc"},
    {"cudaFree_v3020", 22, "free"},
    {"cudaMallocHost_v3020", 21, "alloc"},
    {"cudaStreamCreateWithPriority_v5050", 202, "stream-create"},
    {"cudaEventCreateWithFlags_v3020", 134, "event-create"},
    {"cudaLaunchKernel_v7000", 211, "kernel"},
    {"cudaMemcpyAsync_v3020", 41, "copy"},
    {"cudaMemsetAsync_v3020", 51, "memset"},
    {"cudaEventRecord_v3020", 135, "event-record"},
    {"cudaStreamWaitEvent_v3020", 132, "stream-wait-event"},
    {"cudaStreamSynchronize_v3020", 131, "sync-stream"},
    {"cudaEventQuery_v3020", 136, "query-event"},
    {"cudaDeviceSynchronize_v3020", 165, "sync-device"},
    {"cudaSetDevice_v3020", 9, "set-device"},
    {"ncclAllReduce", 0, "collective"},
};

/* ---- output ------------------------------------------------------------- */
static sqlite3 *db;
static sqlite3_stmt *s_call, *s_kernel, *s_karg, *s_transfer, *s_memory,
    *s_record, *s_wait, *s_sync, *s_activity, *s_stack, *s_string;

static void die(const char *what)
{
  fprintf(stderr, "gen_recording: %s: %s\n", what, sqlite3_errmsg(db));
  exit(1);
}

static void exec(const char *sql)
{
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
    die(sql);
}

static sqlite3_stmt *prep(const char *sql)
{
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    die(sql);
  return st;
}

static void step(sqlite3_stmt *st)
{
  if (sqlite3_step(st) != SQLITE_DONE)
    die("insert");
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
}

/* the INSERT of every column of table T (tables.def) */
static sqlite3_stmt *prep_insert(enum cl_table t)
{
  char sql[1024];
  if (cl_insert_sql(sql, sizeof sql, "INSERT", t, "") < 0)
    die("the text of an INSERT");
  return prep(sql);
}

/* bind column C of table T in ST, an INSERT of prep_insert(CL_TABLE_T) */
#define I64(st, t, c, v)                                                       \
  sqlite3_bind_int64(st, CL_COL_##t##_##c + 1, (sqlite3_int64)(v))
#define TXT(st, t, c, v)                                                       \
  sqlite3_bind_text(st, CL_COL_##t##_##c + 1, v, -1, SQLITE_TRANSIENT)

/* ---- the run's state ---------------------------------------------------- */
enum { TID_MAIN = 4242, TID_AUTOGRAD = 4251 };
enum { S_COMPUTE = 0 };                       /* legacy default stream */
static const int64_t S_COPY = 0x55550a001000, S_SIDE = 0x55550a002000;
static const int64_t EV_BATCH = 0x55550b000100, EV_STEP = 0x55550b000200,
                     EV_OPT = 0x55550b000300, EV_EMA = 0x55550b000400;

static int64_t seq, corr, now_ns, target;
static uint64_t rng = 88172645463325252ULL;
static int layers = 64, plant = 1;
static long rank = -1, nranks = 0, mismatch = -1; /* --rank, --nranks, --mismatch */

static uint64_t rnd(void)
{
  return cl_xorshift64(&rng);
}

/* modules: ids 1..5 invented (files not on this machine), 6 this program */
static uint64_t exe_start, exe_end, exe_bias;
static char exe_build_id[41]; /* hex, as the shim records it */
static const struct { const char *path; uint64_t start, size; } mods[] = {
    {"/opt/venv/lib/python3.12/site-packages/nvidia/cuda_runtime/lib/"
     "libcudart.so.12", 0x7f3a10000000, 0x800000},
    {"/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so",
     0x7f3a20000000, 0x40000000},
    {"/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_python.so",
     0x7f3a70000000, 0x2000000},
    {"/usr/bin/python3.12", 0x555555554000, 0x800000},
    {"/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f3a80000000, 0x200000},
};

static int find_exe(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size, (void)arg;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD) {
      uint64_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
      if (a < lo)
        lo = a;
      if (a + info->dlpi_phdr[i].p_memsz > hi)
        hi = a + info->dlpi_phdr[i].p_memsz;
    }
  exe_start = lo, exe_end = hi, exe_bias = info->dlpi_addr;
  /* the build id: a rebuilt generator's frames are then reported as
   * module+offset, not as whatever is at that address */
  cl_build_id(info, exe_build_id);
  return 1; /* the first object is the program */
}

static void write_modules(void)
{
  sqlite3_stmt *st = prep_insert(CL_TABLE_modules);
  for (size_t i = 0; i < sizeof mods / sizeof *mods; i++) {
    I64(st, modules, id, i + 1);
    TXT(st, modules, path, mods[i].path);
    I64(st, modules, start, mods[i].start);
    I64(st, modules, end, mods[i].start + mods[i].size);
    I64(st, modules, bias, mods[i].start);
    step(st);
  }
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    dl_iterate_phdr(find_exe, NULL);
    I64(st, modules, id, 6);
    TXT(st, modules, path, exe);
    I64(st, modules, start, exe_start);
    I64(st, modules, end, exe_end);
    I64(st, modules, bias, exe_bias);
    if (exe_build_id[0])
      TXT(st, modules, build_id, exe_build_id);
    step(st);
  }
  sqlite3_finalize(st);
}

/* Native stacks, one per (site kind, layer): ids kind * 1000 + layer + 1,
 * written when first used.  Frames innermost first: cudart, libtorch_cuda,
 * [this program,] libtorch_python, python, libc. */
enum site { K_FWD, K_FWD2, K_BWD, K_BWD2, K_OPT, K_EMA, K_ZERO, K_COPY_IN,
            K_ITEM, K_SYNC, K_RECORD, K_WAIT, K_QUERY, K_ALLOC, K_FREE,
            K_SETUP, K_ALLREDUCE, K_SITES };
static unsigned char *stack_written;

static void site_anchor(void) {}

static int64_t stack_of(enum site k, int layer, int native)
{
  int64_t id = (int64_t)k * 1000 + layer + 1 + (native ? 500 : 0);
  if (stack_written[id])
    return id;
  stack_written[id] = 1;
  uint64_t f[6];
  int n = 0;
  f[n++] = mods[0].start + 0x4a310 + (uint64_t)k * 0x40;
  f[n++] = mods[1].start + 0x1200000 + (uint64_t)k * 0x9100 + (uint64_t)layer * 0x38;
  if (native && exe_start)
    f[n++] = (uint64_t)(uintptr_t)&site_anchor + 1;
  f[n++] = mods[2].start + 0x6a0000 + (uint64_t)k * 0x120;
  f[n++] = mods[3].start + 0x1f0000 + (uint64_t)layer * 0x10;
  f[n++] = mods[4].start + 0x29d90;
  unsigned char blob[6 * 8];
  for (int i = 0; i < n; i++)
    for (int b = 0; b < 8; b++)
      blob[i * 8 + b] = (unsigned char)(f[i] >> (8 * b));
  I64(s_stack, stacks, id, id);
  sqlite3_bind_blob(s_stack, CL_COL_stacks_frames + 1, blob, n * 8, SQLITE_TRANSIENT);
  step(s_stack);
  return id;
}

/* Python stacks (strings ids 100000 + kind * 1000 + layer), the autograd
 * thread has none */
static unsigned char *pystack_written;

static int64_t pystack_of(enum site k, int layer)
{
  static const char *const where[K_SITES] = {
      "model.py:%d:forward", "model.py:%d:forward", NULL, NULL,
      "optim.py:%d:step", "ema.py:%d:update", "optim.py:%d:zero_grad",
      "data.py:%d:to_device", "train.py:%d:log_loss", "train.py:%d:log_loss",
      "train.py:%d:prefetch", "train.py:%d:prefetch", "data.py:%d:ready",
      "model.py:%d:grow", "model.py:%d:shrink", "train.py:%d:setup",
      "ddp.py:%d:sync_grads"};
  if (!where[k])
    return 0;
  int64_t id = 100000 + (int64_t)k * 1000 + layer;
  if (pystack_written[k * 1000 + layer])
    return id;
  pystack_written[k * 1000 + layer] = 1;
  char inner[128], text[512];
  snprintf(inner, sizeof inner, where[k], 20 + layer * 3 + k);
  snprintf(text, sizeof text,
           "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/"
           "module.py:1747:_call_impl\n/home/user/train/%s\n"
           "/home/user/train/train.py:%d:train_step\n"
           "/home/user/train/train.py:140:main",
           inner, 90 + k);
  /* innermost first: drop the torch frame for the user's own code */
  const char *t = strchr(text, '\n') + 1;
  I64(s_string, strings, id, id);
  TXT(s_string, strings, value, t);
  step(s_string);
  return id;
}

/* one row of calls */
static int64_t call(enum api a, int64_t tid, int stream_known, int64_t stream,
                    enum site k, int layer)
{
  if (seq >= target)
    return -1;
  int64_t s = ++seq;
  int64_t start = now_ns;
  int64_t dur = 2000 + (int64_t)(rnd() % 6000);
  now_ns += dur + 500 + (int64_t)(rnd() % 1500);
  int native = (a == A_LAUNCH && layer % 10 == 3);
  int64_t py = tid == TID_MAIN ? pystack_of(k, layer) : 0;
  I64(s_call, calls, seq, s);
  I64(s_call, calls, api, a);
  I64(s_call, calls, tid, tid);
  I64(s_call, calls, start_ns, start);
  I64(s_call, calls, end_ns, start + dur);
  I64(s_call, calls, result, 0);
  I64(s_call, calls, device, 0);
  I64(s_call, calls, context, 1);
  if (stream_known)
    I64(s_call, calls, stream, stream);
  I64(s_call, calls, correlation, ++corr);
  I64(s_call, calls, stack, stack_of(k, layer, native));
  if (py)
    I64(s_call, calls, pystack, py);
  step(s_call);
  return s;
}

static int64_t cupti_stream_id(int64_t stream)
{
  return stream == S_COPY ? 13 : stream == S_SIDE ? 14 : 7;
}

static void activity(const char *kind, int64_t stream, int64_t bytes,
                     const char *copy_kind, const char *src_kind,
                     const char *dst_kind, int64_t name)
{
  int64_t start = now_ns + 3000 + (int64_t)(rnd() % 20000);
  I64(s_activity, activity, correlation, corr);
  TXT(s_activity, activity, kind, kind);
  I64(s_activity, activity, start_ns, start);
  I64(s_activity, activity, end_ns, start + 5000 + (int64_t)(rnd() % 100000));
  I64(s_activity, activity, device, 0);
  I64(s_activity, activity, context, 1);
  I64(s_activity, activity, stream_id, cupti_stream_id(stream));
  if (bytes >= 0)
    I64(s_activity, activity, bytes, bytes);
  if (copy_kind) {
    TXT(s_activity, activity, copy_kind, copy_kind);
    TXT(s_activity, activity, src_kind, src_kind);
  }
  if (dst_kind)
    TXT(s_activity, activity, dst_kind, dst_kind);
  if (copy_kind) {
    I64(s_activity, activity, src_device, 0);
    I64(s_activity, activity, dst_device, 0);
  }
  if (name)
    I64(s_activity, activity, name, name);
  step(s_activity);
}

/* ---- memory ------------------------------------------------------------- */
enum { MB = 1 << 20 };
static const uint64_t DEV_BASE = 0x7f3b00000000ULL;
static uint64_t *weight, *grad, *ema, *act, *gact; /* per layer */
static uint64_t pinned_batch, input, labels, loss, pageable_loss = 0x5555a0001000;
static uint64_t next_dev = DEV_BASE;

static void alloc_row(int64_t s, uint64_t addr, int64_t size, const char *kind)
{
  I64(s_memory, memory, seq, s);
  TXT(s_memory, memory, op, "alloc");
  I64(s_memory, memory, address, addr);
  I64(s_memory, memory, size, size);
  TXT(s_memory, memory, kind, kind);
  I64(s_memory, memory, device, 0);
  I64(s_memory, memory, flags, 0);
  step(s_memory);
}

static uint64_t dev_alloc(int64_t size, enum site k, int layer)
{
  int64_t s = call(A_MALLOC, TID_MAIN, 0, 0, k, layer);
  uint64_t a = next_dev;
  next_dev += ((uint64_t)size + MB - 1) / MB * MB;
  if (s > 0)
    alloc_row(s, a, size, "device");
  return a;
}

/* ---- operations --------------------------------------------------------- */
/* kernel names: strings 1..NAMES, three signatures */
enum { NAMES = 240 };
static const char *const sig[] = {"PKfS0_Pfi", "PfPKfi", "Pfi"};

static void kernel(int64_t tid, int64_t stream, enum site k, int layer,
                   int name, const uint64_t *ptrs, int nptrs)
{
  int64_t s = call(A_LAUNCH, tid, 1, stream, k, layer);
  if (s < 0)
    return;
  I64(s_kernel, kernels, seq, s);
  I64(s_kernel, kernels, name, name + 1);
  I64(s_kernel, kernels, grid_x, 128 + layer);
  I64(s_kernel, kernels, grid_y, 1);
  I64(s_kernel, kernels, grid_z, 1);
  I64(s_kernel, kernels, block_x, 256);
  I64(s_kernel, kernels, block_y, 1);
  I64(s_kernel, kernels, block_z, 1);
  I64(s_kernel, kernels, shared_mem, 0);
  I64(s_kernel, kernels, stream, stream);
  step(s_kernel);
  if (nptrs > 0) {
    /* one launch_args row: parameter i at offset 0 holds ptrs[i] */
    unsigned char words[16 * CL_LAUNCH_ARG_SIZE];
    int n = nptrs < 16 ? nptrs : 16;
    for (int i = 0; i < n; i++)
      cl_launch_arg_put(words + i * CL_LAUNCH_ARG_SIZE, (unsigned)i, 0, 0,
                        ptrs[i]);
    I64(s_karg, launch_args, seq, s);
    sqlite3_bind_blob(s_karg, CL_COL_launch_args_args + 1, words,
                      n * CL_LAUNCH_ARG_SIZE, SQLITE_TRANSIENT);
    step(s_karg);
  }
  activity("kernel", stream, -1, NULL, NULL, NULL, name + 1);
}

/* a kernel of signature SIG (0: in, in, out; 1: out, in; 2: inout) */
static void launch(int64_t tid, int64_t stream, enum site k, int layer,
                   int sig_kind, uint64_t a, uint64_t b, uint64_t c)
{
  int name = ((int)k * 53 + layer * 7) % (NAMES / 3) * 3 + sig_kind;
  uint64_t p[3] = {a, b, c};
  kernel(tid, stream, k, layer, name, p, 3 - sig_kind);
}

static void copy(int64_t tid, int64_t stream, enum site k, const char *dir,
                 uint64_t dst, uint64_t src, int64_t bytes, const char *ck,
                 const char *sk, const char *dk)
{
  int64_t s = call(A_MEMCPY_ASYNC, tid, 1, stream, k, 0);
  if (s < 0)
    return;
  I64(s_transfer, transfers, seq, s);
  TXT(s_transfer, transfers, op, "copy");
  TXT(s_transfer, transfers, direction, dir);
  I64(s_transfer, transfers, dst, dst);
  I64(s_transfer, transfers, src, src);
  I64(s_transfer, transfers, bytes, bytes);
  I64(s_transfer, transfers, async, 1);
  I64(s_transfer, transfers, stream, stream);
  I64(s_transfer, transfers, src_device, 0);
  I64(s_transfer, transfers, dst_device, 0);
  step(s_transfer);
  activity("memcpy", stream, bytes, ck, sk, dk, 0);
}

static void memset_(int64_t tid, int64_t stream, enum site k, int layer,
                    uint64_t dst, int64_t bytes)
{
  int64_t s = call(A_MEMSET_ASYNC, tid, 1, stream, k, layer);
  if (s < 0)
    return;
  I64(s_transfer, transfers, seq, s);
  TXT(s_transfer, transfers, op, "memset");
  I64(s_transfer, transfers, dst, dst);
  I64(s_transfer, transfers, bytes, bytes);
  I64(s_transfer, transfers, value, 0);
  I64(s_transfer, transfers, async, 1);
  I64(s_transfer, transfers, stream, stream);
  I64(s_transfer, transfers, src_device, 0);
  I64(s_transfer, transfers, dst_device, 0);
  step(s_transfer);
  activity("memset", stream, bytes, NULL, NULL, "device", 0);
}

static void record(int64_t tid, int64_t stream, int64_t ev, enum site k)
{
  int64_t s = call(A_EVENT_RECORD, tid, 1, stream, k, 0);
  if (s < 0)
    return;
  I64(s_record, event_records, seq, s);
  I64(s_record, event_records, event, ev);
  I64(s_record, event_records, stream, stream);
  step(s_record);
}

static void wait_event(int64_t tid, int64_t stream, int64_t ev, enum site k)
{
  int64_t s = call(A_STREAM_WAIT, tid, 1, stream, k, 0);
  if (s < 0)
    return;
  I64(s_wait, stream_waits, seq, s);
  I64(s_wait, stream_waits, stream, stream);
  I64(s_wait, stream_waits, event, ev);
  step(s_wait);
}

static void sync_row(int64_t s, const char *kind, int has_stream,
                     int64_t stream, int64_t ev)
{
  I64(s_sync, syncs, seq, s);
  TXT(s_sync, syncs, kind, kind);
  if (has_stream)
    I64(s_sync, syncs, stream, stream);
  if (ev)
    I64(s_sync, syncs, event, ev);
  I64(s_sync, syncs, complete, 1);
  step(s_sync);
}

/* ---- one training step -------------------------------------------------- */
enum { ACT_BYTES = 4 * MB, W_BYTES = 2 * MB, BATCH = 6 * MB };

/* the data loader's next batch to the device on the copy stream, once the
 * backward of step N is done with the input (N < 0: the first batch) */
static void prefetch(long n)
{
  if (n >= 0 && !(plant && n == 5))
    wait_event(TID_MAIN, S_COPY, EV_STEP, K_WAIT);
  copy(TID_MAIN, S_COPY, K_COPY_IN, "htod", input, pinned_batch, BATCH,
       "htod", "pinned", "device");
  copy(TID_MAIN, S_COPY, K_COPY_IN, "htod", labels, pinned_batch + BATCH,
       64 * 1024, "htod", "pinned", "device");
  record(TID_MAIN, S_COPY, EV_BATCH, K_RECORD);
}

/* DDP: the gradients of step N all-reduced on the compute stream */
static void allreduce(long n)
{
  int64_t s = call(A_ALLREDUCE, TID_MAIN, 1, S_COMPUTE, K_ALLREDUCE, 0);
  if (s < 0)
    return;
  char sql[512];
  snprintf(sql, sizeof sql,
           "INSERT INTO collectives(seq, comm, comm_id, kind, rank, nranks,"
           " send, recv, count, datatype, redop, stream)"
           " VALUES(%lld, 94000000100000, %d, 'all-reduce', %ld, %ld, %llu,"
           " %llu, %lld, 7, 0, 0)",
           (long long)s, 0xc011, rank, nranks,
           (unsigned long long)grad[0], (unsigned long long)grad[0],
           (long long)layers * W_BYTES / 4 + (n == mismatch ? 1 : 0));
  exec(sql);
}

static void training_step(long n)
{
  wait_event(TID_MAIN, S_COMPUTE, EV_BATCH, K_WAIT);
  /* forward */
  for (int l = 0; l < layers; l++) {
    launch(TID_MAIN, S_COMPUTE, K_FWD, l, 0, l ? act[l - 1] : input,
           weight[l], act[l]);
    launch(TID_MAIN, S_COMPUTE, K_FWD2, l, 2, act[l], 0, 0);
  }
  launch(TID_MAIN, S_COMPUTE, K_FWD, layers, 0, act[layers - 1], labels, loss);
  /* zero_grad */
  for (int l = 0; l < layers; l++)
    memset_(TID_MAIN, S_COMPUTE, K_ZERO, l, grad[l], W_BYTES);
  /* backward, on the autograd thread */
  for (int l = layers - 1; l >= 0; l--) {
    launch(TID_AUTOGRAD, S_COMPUTE, K_BWD, l, 0, gact[l + 1], weight[l],
           gact[l]);
    launch(TID_AUTOGRAD, S_COMPUTE, K_BWD2, l, 0, l ? act[l - 1] : input,
           gact[l + 1], grad[l]);
  }
  if (rank >= 0)
    allreduce(n);
  record(TID_MAIN, S_COMPUTE, EV_STEP, K_RECORD);
  prefetch(n);
  /* optimizer, after the EMA of the last step is done reading */
  wait_event(TID_MAIN, S_COMPUTE, EV_EMA, K_WAIT);
  for (int l = 0; l < layers; l++)
    launch(TID_MAIN, S_COMPUTE, K_OPT, l, 1, weight[l], grad[l], 0);
  record(TID_MAIN, S_COMPUTE, EV_OPT, K_RECORD);
  /* EMA of the weights on the side stream */
  if (!(plant && n == 3))
    wait_event(TID_MAIN, S_SIDE, EV_OPT, K_WAIT);
  for (int l = 0; l < layers; l += 4)
    launch(TID_MAIN, S_SIDE, K_EMA, l, 1, ema[l], weight[l], 0);
  record(TID_MAIN, S_SIDE, EV_EMA, K_RECORD);
  /* loss.item() */
  copy(TID_MAIN, S_COMPUTE, K_ITEM, "dtoh", pageable_loss, loss, 4, "dtoh",
       "device", "pageable");
  int64_t s = call(A_STREAM_SYNC, TID_MAIN, 1, S_COMPUTE, K_SYNC, 0);
  if (s > 0)
    sync_row(s, "stream", 1, S_COMPUTE, 0);
  s = call(A_EVENT_QUERY, TID_MAIN, 0, 0, K_QUERY, 0);
  if (s > 0)
    sync_row(s, "event-query", 0, 0, EV_BATCH);
  /* the caching allocator grows and shrinks now and then */
  if (n % 50 == 49) {
    uint64_t a = dev_alloc(32 * MB, K_ALLOC, (int)(n / 50 % 8));
    launch(TID_MAIN, S_COMPUTE, K_FWD2, layers, 2, a, 0, 0);
    s = call(A_DEVICE_SYNC, TID_MAIN, 0, 0, K_SYNC, 1);
    if (s > 0)
      sync_row(s, "device", 0, 0, 0);
    s = call(A_FREE, TID_MAIN, 0, 0, K_FREE, (int)(n / 50 % 8));
    if (s > 0) {
      I64(s_memory, memory, seq, s);
      TXT(s_memory, memory, op, "free");
      I64(s_memory, memory, address, a);
      TXT(s_memory, memory, kind, "device");
      I64(s_memory, memory, device, 0);
      step(s_memory);
    }
  }
  if (n % 1000 == 999) {
    s = call(A_DEVICE_SYNC, TID_MAIN, 0, 0, K_SYNC, 2);
    if (s > 0)
      sync_row(s, "device", 0, 0, 0);
  }
}

/* ---- setup -------------------------------------------------------------- */
static void write_fixed(int argc, char **argv)
{
  sqlite3_stmt *st = prep_insert(CL_TABLE_api);
  for (int i = 0; i < A_COUNT; i++) {
    I64(st, api, id, i);
    TXT(st, api, name, apis[i].name);
    TXT(st, api, domain, i == A_ALLREDUCE ? "nccl" : "runtime");
    I64(st, api, cbid, apis[i].cbid);
    TXT(st, api, op, apis[i].op);
    step(st);
  }
  sqlite3_finalize(st);
  st = prep_insert(CL_TABLE_meta);
  char cmd[4096] = "[";
  for (int i = 0; i < argc && strlen(cmd) + strlen(argv[i]) + 8 < sizeof cmd; i++)
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s\"%s\"",
             i ? "," : "", argv[i]);
  strcat(cmd, "]");
  char pid[32], rk[32];
  snprintf(pid, sizeof pid, "%ld", 4242 + (rank >= 0 ? rank : 0));
  snprintf(rk, sizeof rk, "%ld", rank);
  const char *kv[][2] = {
      {"format", CL_FORMAT_NAME}, {"cudalens_version", "0.1.0"},
      {"pid", pid}, {"rank", rank >= 0 ? rk : NULL}, {"ppid", "4200"}, {"hostname", "bench"},
      {"exe", "/usr/bin/python3.12"}, {"cmdline", cmd},
      {"start_ns", "1000000"}, {"capture", "cupti"}, {"stack_depth", "16"},
      {"gpu_activity", "1"}, {"end", "exit"}, {"clean_exit", "1"}};
  for (size_t i = 0; i < sizeof kv / sizeof *kv; i++) {
    if (!kv[i][1])
      continue;
    TXT(st, meta, key, kv[i][0]);
    TXT(st, meta, value, kv[i][1]);
    step(st);
  }
  sqlite3_finalize(st);
  exec("INSERT INTO devices(ordinal, name, uuid, pci_bus_id, cc_major,"
       " cc_minor, total_mem) VALUES(0, 'NVIDIA H100 80GB HBM3',"
       " 'GPU-5b1f0c2e-0000-0000-0000-000000000000', '00000000:19:00.0', 9, 0,"
       " 84929347584);"
       "INSERT INTO contexts(id, device, handle, created_seq)"
       " VALUES(1, 0, 94000000000000, 2);"
       "INSERT INTO threads(tid, name)"
       " VALUES(4242, 'python3'), (4251, 'pt_autograd_0');");
  /* kernel names */
  for (int i = 0; i < NAMES; i++) {
    char name[128], base[64];
    static const char *const what[] = {"gemm_tn", "relu_fwd", "layer_norm",
                                       "softmax", "adam_step", "reduce_sum"};
    snprintf(base, sizeof base, "%s_%03d", what[i / 3 % 6], i / 3);
    snprintf(name, sizeof name, "_Z%zu%s%s", strlen(base), base, sig[i % 3]);
    I64(s_string, strings, id, i + 1);
    TXT(s_string, strings, value, name);
    step(s_string);
  }
}

static void setup(void)
{
  int64_t s = call(A_SET_DEVICE, TID_MAIN, 0, 0, K_SETUP, 0);
  exec("INSERT INTO device_ops(seq, op, device) VALUES(1, 'set-device', 0)");
  (void)s;
  sqlite3_stmt *st = prep_insert(CL_TABLE_streams);
  const int64_t streams[] = {S_COPY, S_SIDE};
  for (int i = 0; i < 2; i++) {
    s = call(A_STREAM_CREATE, TID_MAIN, 1, streams[i], K_SETUP, 1 + i);
    I64(st, streams, seq, s);
    I64(st, streams, handle, streams[i]);
    I64(st, streams, device, 0);
    I64(st, streams, flags, 1);
    I64(st, streams, priority, -1 * i);
    step(st);
  }
  sqlite3_finalize(st);
  st = prep_insert(CL_TABLE_events);
  const int64_t events[] = {EV_BATCH, EV_STEP, EV_OPT, EV_EMA};
  for (int i = 0; i < 4; i++) {
    s = call(A_EVENT_CREATE, TID_MAIN, 0, 0, K_SETUP, 3 + i);
    I64(st, events, seq, s);
    I64(st, events, handle, events[i]);
    I64(st, events, flags, 2);
    I64(st, events, device, 0);
    step(st);
  }
  sqlite3_finalize(st);
  s = call(A_MALLOC_HOST, TID_MAIN, 0, 0, K_SETUP, 7);
  pinned_batch = 0x7f3c00000000ULL;
  alloc_row(s, pinned_batch, BATCH + MB, "pinned");
  weight = calloc((size_t)layers + 1, sizeof *weight);
  grad = calloc((size_t)layers + 1, sizeof *grad);
  ema = calloc((size_t)layers + 1, sizeof *ema);
  act = calloc((size_t)layers + 1, sizeof *act);
  gact = calloc((size_t)layers + 2, sizeof *gact);
  for (int l = 0; l < layers; l++) {
    weight[l] = dev_alloc(W_BYTES, K_SETUP, 8 + l % 32);
    grad[l] = dev_alloc(W_BYTES, K_SETUP, 8 + l % 32);
    ema[l] = dev_alloc(W_BYTES, K_SETUP, 8 + l % 32);
    act[l] = dev_alloc(ACT_BYTES, K_SETUP, 8 + l % 32);
  }
  for (int l = 0; l <= layers; l++)
    gact[l] = dev_alloc(ACT_BYTES, K_SETUP, 40 + l % 32);
  input = dev_alloc(BATCH, K_SETUP, 80);
  labels = dev_alloc(MB, K_SETUP, 81);
  loss = dev_alloc(MB, K_SETUP, 82);
  /* the autograd thread starts */
  char sql[128];
  snprintf(sql, sizeof sql,
           "INSERT INTO thread_edges(seq, kind, tid, other)"
           " VALUES(%lld, 'create', %d, %d)",
           (long long)seq, TID_MAIN, TID_AUTOGRAD);
  exec(sql);
  prefetch(-1);
}

static void usage(void)
{
  fputs("usage: gen_recording [--layers L] [--seed S] [--no-plant]\n"
        "                     [--rank R --nranks N [--mismatch STEP]] OUT.db"
        " EVENTS\n", stderr);
  exit(2);
}

int main(int argc, char **argv)
{
  int i = 1;
  for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
    if (!strcmp(argv[i], "--layers") && i + 1 < argc)
      layers = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      rng = strtoull(argv[++i], NULL, 0) | 1;
    else if (!strcmp(argv[i], "--no-plant"))
      plant = 0;
    else if (!strcmp(argv[i], "--rank") && i + 1 < argc)
      rank = atol(argv[++i]);
    else if (!strcmp(argv[i], "--nranks") && i + 1 < argc)
      nranks = atol(argv[++i]);
    else if (!strcmp(argv[i], "--mismatch") && i + 1 < argc)
      mismatch = atol(argv[++i]);
    else
      usage();
  }
  if (argc - i != 2 || layers < 1 || layers > 400 ||
      (rank >= 0) != (nranks > 0) || (rank >= 0 && rank >= nranks))
    usage();
  const char *out = argv[i];
  target = strtoll(argv[i + 1], NULL, 0);
  if (target < 1000) {
    fputs("gen_recording: EVENTS must be at least 1000\n", stderr);
    return 2;
  }
  unlink(out);
  if (sqlite3_open(out, &db) != SQLITE_OK)
    die(out);
  char pragmas[256];
  snprintf(pragmas, sizeof pragmas,
           "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
           " PRAGMA cache_size=-262144; PRAGMA user_version=%d;",
           CL_SCHEMA_VERSION);
  exec(pragmas);
  exec("BEGIN");
  exec(CL_SCHEMA_SQL);
  s_call = prep_insert(CL_TABLE_calls);
  s_kernel = prep_insert(CL_TABLE_kernels);
  s_karg = prep_insert(CL_TABLE_launch_args);
  s_transfer = prep_insert(CL_TABLE_transfers);
  s_memory = prep_insert(CL_TABLE_memory);
  s_record = prep_insert(CL_TABLE_event_records);
  s_wait = prep_insert(CL_TABLE_stream_waits);
  s_sync = prep_insert(CL_TABLE_syncs);
  s_activity = prep_insert(CL_TABLE_activity);
  s_stack = prep_insert(CL_TABLE_stacks);
  s_string = prep_insert(CL_TABLE_strings);
  stack_written = calloc(K_SITES * 1000 + 1000, 1);
  pystack_written = calloc(K_SITES * 1000 + 1000, 1);
  now_ns = 1000000;
  write_fixed(argc, argv);
  write_modules();
  setup();
  long steps = 0;
  while (seq < target)
    training_step(steps++);
  char sql[256];
  snprintf(sql, sizeof sql,
           "INSERT INTO meta(key, value) VALUES('end_ns', '%lld'),"
           " ('last_seq', '%lld'),"
           " ('steps', '%ld')",
           (long long)now_ns, (long long)seq, steps);
  exec(sql);
  exec(CL_INDEX_SQL);
  sqlite3_stmt *all[] = {s_call, s_kernel, s_karg, s_transfer, s_memory,
                         s_record, s_wait, s_sync, s_activity, s_stack,
                         s_string};
  for (size_t k = 0; k < sizeof all / sizeof *all; k++)
    sqlite3_finalize(all[k]);
  exec("COMMIT");
  if (sqlite3_close(db) != SQLITE_OK)
    die("close");
  printf("%s: %lld calls, %ld steps of %d layers\n", out, (long long)seq,
         steps, layers);
  return 0;
}

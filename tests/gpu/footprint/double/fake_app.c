/* fake_app.c - TEST DOUBLE, never shipped: plays fp_test.cu's "check" for
 * the footprint probe on a machine without a GPU.  It delivers, through the
 * fake Sanitizer library (fake_sanitizer.c), the callbacks the driver would:
 * a module load, the allocations, and for each of fp_test's three kernels the
 * launch API calls (the runtime's, the driver's within it with the argument
 * array), LAUNCH_BEGIN, the kernel's global
 * accesses (appended as patches.cu does), LAUNCH_END.  It also provides
 * cuFuncGetParamInfo (found by the probe through RTLD_DEFAULT).  The
 * accesses are fp_test.cu's, written out by hand from its kernels.  With
 * "loop N" it plays a training loop first: fp_halfwrite N times, on two
 * streams until launch 50 (the second then destroyed), then on one, with a
 * graph launched on a third stream after launch 10 (graph callbacks); then
 * fp_gather and fp_atomic once each (functions first launched late).  With
 * FAKE_OPEN=K a second thread begins a launch of fp_halfwrite after launch
 * K and ends it only after launch K + 100 (a launch between its
 * LAUNCH_BEGIN and LAUNCH_END meanwhile); with FAKE_CAPTURE=A:B stream 1
 * is being captured from launch A to launch B (cuStreamIsCapturing, found
 * by the collector through RTLD_DEFAULT); with FAKE_UNSEEN_MODULE=1 the
 * launches name a module no MODULE_LOADED announced.  It prints what the
 * double saw
 * (fake_stats). */
#include <cuda.h>
#include <pthread.h>
#include <sanitizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_buffer.h"

void fake_emit(Sanitizer_CallbackDomain, Sanitizer_CallbackId, const void *);
const void *fake_launch_data(void);
void fake_stats(long[6]);

#define N 4096
#define CTX ((CUcontext)0x10)
#define MOD ((CUmodule)0x20)
#define STREAM1 ((Sanitizer_StreamHandle)0x30)
#define STREAM2 ((Sanitizer_StreamHandle)0x31)
#define STREAM3 ((Sanitizer_StreamHandle)0x32)
static Sanitizer_StreamHandle stream = STREAM1; /* of the next launch */

/* the kernels, as CUfunction handles, and their parameter sizes */
static char k_halfwrite, k_gather, k_atomic;
static const size_t halfwrite_params[] = {8, 8, 4}, gather_params[] = {8, 8},
                    atomic_params[] = {8};

__attribute__((visibility("default"))) CUresult
cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size)
{
  const size_t *p;
  size_t n;
  if (f == (CUfunction)&k_halfwrite)
    p = halfwrite_params, n = 3;
  else if (f == (CUfunction)&k_gather)
    p = gather_params, n = 2;
  else if (f == (CUfunction)&k_atomic)
    p = atomic_params, n = 1;
  else
    return CUDA_ERROR_INVALID_VALUE;
  if (i >= n)
    return CUDA_ERROR_INVALID_VALUE;
  *off = 0;
  for (size_t k = 0; k < i; k++)
    *off += p[k];
  *size = p[i];
  return CUDA_SUCCESS;
}

/* FAKE_CAPTURE=A:B: stream 1 captured while launches A..B are made */
static int loop_i, capture_from, capture_to;
__attribute__((visibility("default"))) CUresult
cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *st)
{
  *st = s == (CUstream)STREAM1 && capture_to && loop_i >= capture_from &&
                loop_i <= capture_to
            ? CU_STREAM_CAPTURE_STATUS_ACTIVE
            : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

static void *dev_alloc(size_t size)
{
  void *p = calloc(1, size);
  Sanitizer_ResourceMemoryData m;
  memset(&m, 0, sizeof m);
  m.address = (uint64_t)(uintptr_t)p;
  m.size = size;
  m.context = CTX;
  fake_emit(SANITIZER_CB_DOMAIN_RESOURCE,
            SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC, &m);
  return p;
}

/* one access by the "kernel": what patches.cu's record() does */
static void access_(const void *ptr, uint32_t size, uint32_t flags)
{
  struct fp_buffer *b = (struct fp_buffer *)fake_launch_data();
  if (!b)
    return;
  if (b->count >= b->capacity) { /* full: one more, then no more */
    if (b->count == b->capacity)
      b->count++;
    return;
  }
  uint32_t i = b->count++;
  if (i < b->capacity)
    b->accesses[i] = (struct fp_access){(uint64_t)(uintptr_t)ptr, size, flags};
}
#define R SANITIZER_MEMORY_DEVICE_FLAG_READ
#define W SANITIZER_MEMORY_DEVICE_FLAG_WRITE

struct drv_params { /* cuLaunchKernel_params */
  CUfunction f;
  unsigned grid[3], block[3], shmem;
  CUstream stream;
  void **kernelParams;
  void **extra;
};

/* launch KERNEL named NAME with ARGS; BODY plays its accesses */
static void launch(char *kernel, const char *name, void **args,
                   void (*body)(void **))
{
  /* <<<>>>: the runtime's __cudaLaunchKernel (its parameters unread), and
   * within it the driver's cuLaunchKernel with the argument array */
  struct drv_params dp = {(CUfunction)kernel, {1, 1, 1}, {256, 1, 1}, 0,
                          NULL, args, NULL};
  Sanitizer_CallbackData api, drv;
  memset(&api, 0, sizeof api);
  api.callbackSite = SANITIZER_API_ENTER;
  api.functionName = "__cudaLaunchKernel";
  api.functionParams = NULL;
  fake_emit(SANITIZER_CB_DOMAIN_RUNTIME_API,
            SANITIZER_CBID_RUNTIME_API___cudaLaunchKernel, &api);
  drv = api;
  drv.functionName = "cuLaunchKernel";
  drv.functionParams = &dp;
  fake_emit(SANITIZER_CB_DOMAIN_DRIVER_API,
            SANITIZER_CBID_DRIVER_API_cuLaunchKernel, &drv);
  Sanitizer_LaunchData l;
  memset(&l, 0, sizeof l);
  l.context = CTX;
  l.stream = (CUstream)stream;
  l.hStream = stream;
  l.module = getenv("FAKE_UNSEEN_MODULE") ? (CUmodule)0x21 : MOD;
  l.function = (CUfunction)kernel;
  l.functionName = name;
  l.gridDim_x = l.gridDim_y = l.gridDim_z = 1;
  l.blockDim_x = 256, l.blockDim_y = l.blockDim_z = 1;
  fake_emit(SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_BEGIN, &l);
  body(args);
  fake_emit(SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_END, &l);
  drv.callbackSite = SANITIZER_API_EXIT;
  fake_emit(SANITIZER_CB_DOMAIN_DRIVER_API,
            SANITIZER_CBID_DRIVER_API_cuLaunchKernel, &drv);
  api.callbackSite = SANITIZER_API_EXIT;
  fake_emit(SANITIZER_CB_DOMAIN_RUNTIME_API,
            SANITIZER_CBID_RUNTIME_API___cudaLaunchKernel, &api);
}

static void halfwrite(void **a)
{
  float *out = *(float **)a[0], *in = *(float **)a[1];
  int n = *(int *)a[2];
  for (int i = 0; i < n / 2; i++) { /* out[i] = in[i] + in[i + n / 2] */
    access_(&in[i], 4, R);
    access_(&in[i + n / 2], 4, R);
    access_(&out[i], 4, W);
  }
}

static void gather(void **a)
{
  float *dst = *(float **)a[0], **table = *(float ***)a[1];
  for (int i = 0; i < 64; i++) { /* dst[i] = table[0][i] * 2 */
    access_(&table[0], 8, R);
    access_(&table[0][i], 4, R);
    access_(&dst[i], 4, W);
  }
}

static void atomic(void **a)
{
  unsigned *c = *(unsigned **)a[0];
  for (int i = 0; i < 256; i++)
    access_(c, 4, R | W);
}

/* stream S of CTX is created or destroyed */
static void stream_event(Sanitizer_CallbackId cbid, Sanitizer_StreamHandle s)
{
  Sanitizer_ResourceStreamData d;
  memset(&d, 0, sizeof d);
  d.context = CTX;
  d.stream = (CUstream)s;
  d.hStream = s;
  fake_emit(SANITIZER_CB_DOMAIN_RESOURCE, cbid, &d);
}

/* the second thread's launch stays open between the two barrier waits */
static pthread_barrier_t open_bar;
static void *a1_open[3];
static void hold(void **a)
{
  (void)a;
  pthread_barrier_wait(&open_bar); /* begun */
  pthread_barrier_wait(&open_bar); /* may end */
}
static void *open_launch(void *unused)
{
  (void)unused;
  launch(&k_halfwrite, "fp_halfwrite", a1_open, hold);
  return NULL;
}

/* fake_app: fp_test's check, its three kernels once each;
 * fake_app loop N: fp_halfwrite N times first */
int main(int argc, char **argv)
{
  int times = argc == 3 && !strcmp(argv[1], "loop") ? atoi(argv[2]) : 0;
  Sanitizer_ResourceModuleData m;
  memset(&m, 0, sizeof m);
  m.context = CTX;
  m.module = MOD;
  fake_emit(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_LOADED,
            &m);
  float *out = dev_alloc(N * 4), *in = dev_alloc(N * 4);
  float *src = dev_alloc(64 * 4), *dst = dev_alloc(64 * 4);
  float **table = dev_alloc(sizeof(float *));
  unsigned *counter = dev_alloc(4);
  table[0] = src;
  int n = N;
  void *a1[] = {&out, &in, &n}, *a2[] = {&dst, &table}, *a3[] = {&counter};
  stream_event(SANITIZER_CBID_RESOURCE_STREAM_CREATED, STREAM2);
  const char *o = getenv("FAKE_OPEN");
  int open_at = o ? atoi(o) : 0;
  const char *c = getenv("FAKE_CAPTURE");
  if (c && sscanf(c, "%d:%d", &capture_from, &capture_to) != 2)
    capture_from = capture_to = 0;
  pthread_t th;
  memcpy(a1_open, a1, sizeof a1);
  pthread_barrier_init(&open_bar, NULL, 2);
  for (int i = 1; i <= times; i++) {
    loop_i = i;
    if (open_at && i == open_at + 1) {
      pthread_create(&th, NULL, open_launch, NULL);
      pthread_barrier_wait(&open_bar);
    } else if (open_at && i == open_at + 101) {
      pthread_barrier_wait(&open_bar);
      pthread_join(th, NULL);
    }
    stream = i <= 50 && i % 2 == 0 ? STREAM2 : STREAM1;
    launch(&k_halfwrite, "fp_halfwrite", a1, halfwrite);
    if (i == 50)
      stream_event(SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING, STREAM2);
    if (i == 10) { /* cuGraphLaunch on STREAM3 (its nodes not played) */
      Sanitizer_GraphLaunchData g;
      memset(&g, 0, sizeof g);
      g.context = CTX;
      g.stream = (CUstream)STREAM3;
      g.hStream = STREAM3;
      fake_emit(SANITIZER_CB_DOMAIN_GRAPHS, SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN, &g);
      fake_emit(SANITIZER_CB_DOMAIN_GRAPHS, SANITIZER_CBID_GRAPHS_LAUNCH_END, &g);
    }
  }
  stream = STREAM1;
  if (!times)
    launch(&k_halfwrite, "fp_halfwrite", a1, halfwrite);
  launch(&k_gather, "fp_gather", a2, gather);
  launch(&k_atomic, "fp_atomic", a3, atomic);
  long st[6];
  fake_stats(st);
  printf("fake: launches=%ld patched_launches=%ld patch_calls=%ld"
         " unpatch_calls=%ld waits=%ld waits_destroyed=%ld\n",
         st[0], st[1], st[2], st[3], st[4], st[5]);
  printf("check ok (0 wrong)\n");
  return 0;
}

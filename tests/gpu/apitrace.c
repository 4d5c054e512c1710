/* apitrace.c - an investigation tool, not part of cudalens: an LD_PRELOAD
 * library that subscribes to CUPTI, enables every runtime and driver API
 * callback, and writes one text line per API entry to $APITRACE_OUT.PID:
 *
 *   SEQ TID DEPTH R|D NAME [stream=S event=E ptr=P bytes=N kernel=K]
 *
 * DEPTH counts the enclosing runtime calls of the thread (a driver call at
 * depth 1 is made by the runtime itself).  The stream, event and memory
 * arguments are decoded for the calls that order or touch memory (memsets,
 * launches, event records and waits, stream memory operations, captures,
 * synchronizations, stream creation).  Used to find out what orders two
 * operations that cudalens sees as unordered (issue 8: cuDNN's memset in
 * PyTorch), by reading every call in between.  It takes the process's one
 * CUPTI subscription, so it runs instead of the shim, never beside it.
 *
 *   gcc -shared -fPIC -O2 -I$CUDA/include tests/gpu/apitrace.c \
 *       -o apitrace.so -L$CUDA/lib64 -l:libcupti.so.13 -lpthread
 */
#define _GNU_SOURCE
#include <cupti.h> /* with the generated_*_meta.h parameter structs */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned long seq;
static __thread int depth;

#define P(type) ((const type *)cb->functionParams)

static void args(FILE *f, CUpti_CallbackDomain dom, CUpti_CallbackId id,
                 const CUpti_CallbackData *cb)
{
  if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (id) {
#define RT_MEMSET(n) case CUPTI_RUNTIME_TRACE_CBID_##n: \
      fprintf(f, " stream=%p ptr=%p bytes=%zu", (void *)P(n##_params)->stream, \
              P(n##_params)->devPtr, P(n##_params)->count); break;
    RT_MEMSET(cudaMemsetAsync_v3020)
    RT_MEMSET(cudaMemsetAsync_ptsz_v7000)
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
      fprintf(f, " stream=%p", (void *)P(cudaLaunchKernel_v7000_params)->stream);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
      fprintf(f, " stream=%p", (void *)P(cudaLaunchKernel_ptsz_v7000_params)->stream);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
      fprintf(f, " stream=%p event=%p", (void *)P(cudaEventRecord_v3020_params)->stream,
              (void *)P(cudaEventRecord_v3020_params)->event);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
      fprintf(f, " stream=%p event=%p",
              (void *)P(cudaEventRecordWithFlags_v11010_params)->stream,
              (void *)P(cudaEventRecordWithFlags_v11010_params)->event);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
      fprintf(f, " stream=%p event=%p", (void *)P(cudaStreamWaitEvent_v3020_params)->stream,
              (void *)P(cudaStreamWaitEvent_v3020_params)->event);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
      fprintf(f, " stream=%p", (void *)P(cudaStreamSynchronize_v3020_params)->stream);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000:
      fprintf(f, " stream=%p", (void *)P(cudaStreamBeginCapture_v10000_params)->stream);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
      fprintf(f, " event=%p", (void *)P(cudaEventSynchronize_v3020_params)->event);
      break;
    default:
      break;
    }
    return;
  }
  switch (id) {
#define DR_MEMSET(n) case CUPTI_DRIVER_TRACE_CBID_##n: \
    fprintf(f, " stream=%p ptr=%#llx bytes=%zu", (void *)P(n##_params)->hStream, \
            (unsigned long long)P(n##_params)->dstDevice, P(n##_params)->N); break;
  DR_MEMSET(cuMemsetD8Async)
  DR_MEMSET(cuMemsetD16Async)
  DR_MEMSET(cuMemsetD32Async)
  DR_MEMSET(cuMemsetD8Async_ptsz)
  DR_MEMSET(cuMemsetD32Async_ptsz)
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    fprintf(f, " stream=%p", (void *)P(cuLaunchKernel_params)->hStream);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    fprintf(f, " stream=%p", (void *)P(cuLaunchKernelEx_params)->config->hStream);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    fprintf(f, " stream=%p event=%p", (void *)P(cuEventRecord_params)->hStream,
            (void *)P(cuEventRecord_params)->hEvent);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    fprintf(f, " stream=%p event=%p", (void *)P(cuEventRecordWithFlags_params)->hStream,
            (void *)P(cuEventRecordWithFlags_params)->hEvent);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    fprintf(f, " stream=%p event=%p", (void *)P(cuStreamWaitEvent_params)->hStream,
            (void *)P(cuStreamWaitEvent_params)->hEvent);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
    fprintf(f, " stream=%p", (void *)P(cuStreamSynchronize_params)->hStream);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2:
    fprintf(f, " stream=%p ptr=%#llx", (void *)P(cuStreamWaitValue32_v2_params)->stream,
            (unsigned long long)P(cuStreamWaitValue32_v2_params)->addr);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue32_v2:
    fprintf(f, " stream=%p ptr=%#llx", (void *)P(cuStreamWriteValue32_v2_params)->stream,
            (unsigned long long)P(cuStreamWriteValue32_v2_params)->addr);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2:
    fprintf(f, " stream=%p", (void *)P(cuStreamBatchMemOp_v2_params)->stream);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    fprintf(f, " stream=%p", (void *)P(cuStreamBeginCapture_v2_params)->hStream);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    fprintf(f, " stream=%p", (void *)P(cuGraphLaunch_params)->hStream);
    break;
  default:
    break;
  }
}

static void CUPTIAPI callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id,
                              const void *data)
{
  (void)ud;
  const CUpti_CallbackData *cb = data;
  int rt = dom == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (cb->callbackSite == CUPTI_API_EXIT) {
    if (rt)
      depth--;
    /* the handle a stream creation returns */
    if (rt && id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000) {
      pthread_mutex_lock(&lock);
      fprintf(out, "  -> stream=%p flags=%u\n",
              (void *)*P(cudaStreamCreateWithFlags_v5000_params)->pStream,
              P(cudaStreamCreateWithFlags_v5000_params)->flags);
      pthread_mutex_unlock(&lock);
    } else if (!rt && id == CUPTI_DRIVER_TRACE_CBID_cuStreamCreate) {
      pthread_mutex_lock(&lock);
      fprintf(out, "  -> stream=%p flags=%u\n", (void *)*P(cuStreamCreate_params)->phStream,
              P(cuStreamCreate_params)->Flags);
      pthread_mutex_unlock(&lock);
    }
    return;
  }
  pthread_mutex_lock(&lock);
  fprintf(out, "%lu %ld %d %c %s", atomic_fetch_add(&seq, 1), (long)syscall(SYS_gettid),
          depth, rt ? 'R' : 'D', cb->functionName);
  args(out, dom, id, cb);
  if (cb->symbolName)
    fprintf(out, " kernel=%.120s", cb->symbolName);
  fputc('\n', out);
  pthread_mutex_unlock(&lock);
  if (rt)
    depth++;
}

static CUpti_SubscriberHandle sub;

__attribute__((constructor)) static void start(void)
{
  const char *base = getenv("APITRACE_OUT");
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", base ? base : "apitrace", (int)getpid());
  if (!(out = fopen(path, "w")))
    return;
  if (cuptiSubscribe(&sub, callback, NULL) != CUPTI_SUCCESS ||
      cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS ||
      cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS)
    fprintf(stderr, "apitrace: cannot subscribe to CUPTI\n");
}

__attribute__((destructor)) static void stop(void)
{
  if (out) {
    pthread_mutex_lock(&lock);
    fflush(out);
    pthread_mutex_unlock(&lock);
  }
}

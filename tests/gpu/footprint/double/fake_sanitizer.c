/* fake_sanitizer.c - TEST DOUBLE, never shipped: a libsanitizer-public.so
 * with just the functions the footprint probe calls, on host memory, so that
 * the probe's host side (parameters, merging, attribution, output format)
 * and probe.sh's expectations can be checked on a machine without a GPU
 * (selftest.sh, collector_selftest.sh).  "Device" memory is host memory;
 * fake_emit() lets the fake program (fake_app.c) deliver the callbacks the
 * driver would.  It also keeps which modules are patched
 * (sanitizerPatchModule, sanitizerUnpatchModule), so that a launch of an
 * unpatched module records nothing, counts the launches that ran patched
 * code (fake_stats: the collector's cost), and counts the stream waits,
 * refusing (and counting) a wait for a stream already destroyed. */
#include <sanitizer.h>
#include <stdlib.h>
#include <string.h>

static Sanitizer_CallbackFunc callback;
static void *callback_userdata;
static const void *launch_data; /* the user data of the launch in flight */

/* modules and whether they are patched; a launch runs the patched code when
 * its module is patched at the end of its LAUNCH_BEGIN callbacks (a patch
 * made there applies to it), or, with FAKE_LATE_PATCH=1 (the other reading
 * of the documentation), at their start */
#define FAKE_MODULES 16
static struct { CUmodule m; int patched; } modules[FAKE_MODULES];
static int launch_patched;
static long launches, patched_launches, patch_calls, unpatch_calls, waits,
    bad_waits;
/* streams destroyed (STREAM_DESTROY_STARTING seen) */
#define FAKE_STREAMS 16
static Sanitizer_StreamHandle destroyed[FAKE_STREAMS];
static int n_destroyed;

static int *patched_of(CUmodule m)
{
  for (int i = 0; i < FAKE_MODULES; i++)
    if (modules[i].m == m || !modules[i].m) {
      modules[i].m = m;
      return &modules[i].patched;
    }
  return NULL;
}

__attribute__((visibility("default"))) void
fake_emit(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
          const void *data)
{
  const Sanitizer_LaunchData *l = data;
  int begin = domain == SANITIZER_CB_DOMAIN_LAUNCH &&
              cbid == SANITIZER_CBID_LAUNCH_BEGIN;
  const char *late = getenv("FAKE_LATE_PATCH");
  int is_late = late && *late == '1';
  if (begin) {
    launch_data = NULL;
    launches++;
    if (is_late)
      launch_patched = *patched_of(l->module);
  }
  if (domain == SANITIZER_CB_DOMAIN_RESOURCE &&
      cbid == SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING &&
      n_destroyed < FAKE_STREAMS)
    destroyed[n_destroyed++] =
        ((const Sanitizer_ResourceStreamData *)data)->hStream;
  if (callback)
    callback(callback_userdata, domain, cbid, data);
  if (begin) {
    if (!is_late)
      launch_patched = *patched_of(l->module);
    patched_launches += launch_patched;
  }
}

/* the user data the patches of the launch in flight get: none when it runs
 * unpatched code (no patch is called) */
__attribute__((visibility("default"))) const void *fake_launch_data(void)
{
  return launch_patched ? launch_data : NULL;
}

/* what the double saw: launches, those that ran patched code, the patch
 * and unpatch calls, the stream waits and those for destroyed streams */
__attribute__((visibility("default"))) void fake_stats(long s[6])
{
  s[0] = launches, s[1] = patched_launches, s[2] = patch_calls;
  s[3] = unpatch_calls, s[4] = waits, s[5] = bad_waits;
}

SanitizerResult sanitizerSubscribe(Sanitizer_SubscriberHandle *s,
                                   Sanitizer_CallbackFunc cb, void *userdata)
{
  if (callback)
    return SANITIZER_ERROR_MAX_LIMIT_REACHED;
  callback = cb;
  callback_userdata = userdata;
  *s = (Sanitizer_SubscriberHandle)1;
  return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerEnableDomain(uint32_t e, Sanitizer_SubscriberHandle s,
                                      Sanitizer_CallbackDomain d)
{
  (void)e, (void)s, (void)d;
  return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerEnableCallback(uint32_t e,
                                        Sanitizer_SubscriberHandle s,
                                        Sanitizer_CallbackDomain d,
                                        Sanitizer_CallbackId c)
{
  (void)e, (void)s, (void)d, (void)c;
  return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerGetResultString(SanitizerResult r, const char **str)
{
  *str = r == SANITIZER_SUCCESS ? "No error" : "fake error";
  return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerAlloc(CUcontext ctx, void **p, size_t size)
{
  (void)ctx;
  *p = calloc(1, size);
  return *p ? SANITIZER_SUCCESS : SANITIZER_ERROR_OUT_OF_MEMORY;
}

SanitizerResult sanitizerMemset(void *p, int v, size_t n,
                                Sanitizer_StreamHandle s)
{
  (void)s;
  memset(p, v, n);
  return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerMemcpyHostToDeviceAsync(void *d, void *s, size_t n,
                                                 Sanitizer_StreamHandle st)
{
  (void)st;
  memcpy(d, s, n);
  return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerMemcpyDeviceToHost(void *d, void *s, size_t n,
                                            Sanitizer_StreamHandle st)
{
  (void)st;
  memcpy(d, s, n);
  return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerSetLaunchCallbackData(Sanitizer_LaunchHandle l,
                                               CUfunction k,
                                               Sanitizer_StreamHandle s,
                                               const void *userdata)
{
  (void)l, (void)k, (void)s;
  launch_data = userdata;
  return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerStreamSynchronize(Sanitizer_StreamHandle s)
{
  waits++;
  for (int i = 0; i < n_destroyed; i++)
    if (destroyed[i] == s) {
      bad_waits++;
      return SANITIZER_ERROR_INVALID_PARAMETER;
    }
  return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerAddPatchesFromFile(const char *f, CUcontext c)
{
  (void)c;
  return f && *f ? SANITIZER_SUCCESS : SANITIZER_ERROR_INVALID_PARAMETER;
}

SanitizerResult sanitizerPatchInstructions(const Sanitizer_InstructionId i,
                                           CUmodule m, const char *name)
{
  (void)i, (void)m;
  return name ? SANITIZER_SUCCESS : SANITIZER_ERROR_INVALID_PARAMETER;
}

SanitizerResult sanitizerPatchModule(CUmodule m)
{
  int *p = patched_of(m);
  if (!p)
    return SANITIZER_ERROR_INVALID_PARAMETER;
  *p = 1;
  patch_calls++;
  return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerUnpatchModule(CUmodule m)
{
  int *p = patched_of(m);
  if (!p)
    return SANITIZER_ERROR_INVALID_PARAMETER;
  *p = 0;
  unpatch_calls++;
  return SANITIZER_SUCCESS;
}

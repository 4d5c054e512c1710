/* fake_sanitizer.c - TEST DOUBLE, never shipped: a libsanitizer-public.so
 * with just the functions the footprint probe calls, on host memory, so that
 * the probe's host side (parameters, merging, attribution, output format)
 * and probe.sh's expectations can be checked on a machine without a GPU
 * (selftest.sh, collector_selftest.sh).  "Device" memory is host memory;
 * fake_emit() lets the fake program (fake_app.c) deliver the callbacks the
 * driver would; it also keeps which modules are patched, so that a launch
 * of an unpatched module records nothing, and counts the launches that ran
 * patched code (fake_stats), as the collector's unpatching must keep low. */
#include <sanitizer.h>
#include <stdlib.h>
#include <string.h>

static Sanitizer_CallbackFunc callback;
static void *callback_userdata;
static const void *launch_data; /* the user data of the launch in flight */

/* modules and whether they are patched (sanitizerPatchModule,
 * sanitizerUnpatchModule); a launch runs the patched code when its module
 * is patched at the end of its LAUNCH_BEGIN callbacks, or, with
 * FAKE_LATE_PATCH=1 (the other reading of the documentation), at their
 * start: then a module patched in LAUNCH_BEGIN runs patched from the next
 * launch on */
#define FAKE_MODULES 16
static struct { CUmodule m; int patched; } modules[FAKE_MODULES];
static int launch_patched;
static long launches, patched_launches, patch_calls, unpatch_calls;

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
  if (begin) {
    launch_data = NULL;
    launches++;
    if (late && *late == '1')
      launch_patched = *patched_of(l->module);
  }
  if (callback)
    callback(callback_userdata, domain, cbid, data);
  if (begin) {
    if (!(late && *late == '1'))
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

/* what the double saw: launches, those that ran patched code, and the
 * patch and unpatch calls */
__attribute__((visibility("default"))) void
fake_stats(long *l, long *p, long *pc, long *uc)
{
  *l = launches, *p = patched_launches, *pc = patch_calls, *uc = unpatch_calls;
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
  (void)s;
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

SanitizerResult sanitizerFree(CUcontext ctx, void *p)
{
  (void)ctx;
  free(p);
  return SANITIZER_SUCCESS;
}

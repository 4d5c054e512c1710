/* fake_sanitizer.c - TEST DOUBLE, never shipped: a libsanitizer-public.so
 * with just the functions the footprint probe calls, on host memory, so that
 * the probe's host side (parameters, merging, attribution, output format)
 * and probe.sh's expectations can be checked on a machine without a GPU
 * (selftest.sh).  "Device" memory is host memory; fake_emit() lets the fake
 * program (fake_app.c) deliver the callbacks the driver would. */
#include <sanitizer.h>
#include <stdlib.h>
#include <string.h>

static Sanitizer_CallbackFunc callback;
static void *callback_userdata;
static const void *launch_data; /* the user data of the launch in flight */

__attribute__((visibility("default"))) void
fake_emit(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
          const void *data)
{
  if (callback)
    callback(callback_userdata, domain, cbid, data);
}

__attribute__((visibility("default"))) const void *fake_launch_data(void)
{
  return launch_data;
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
  (void)m;
  return SANITIZER_SUCCESS;
}

/* probe_cupti.c - the CUPTI side of the footprint probe (modes b and c): a
 * callback subscriber on the runtime and driver API domains, as a profiler
 * (or the cudalens shim) has, that only counts its callbacks, so that the
 * verdict can say whether CUPTI still calls back once the Sanitizer API is
 * subscribed too.  CUPTI is loaded with dlopen: the probe needs it only in
 * these modes. */
#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

atomic_long fp_n_cupti_cb, fp_n_cupti_launch, fp_n_cupti_during;

static void CUPTIAPI on_cupti(void *userdata, CUpti_CallbackDomain domain,
                              CUpti_CallbackId cbid, const void *cbdata)
{
  (void)userdata;
  (void)cbid;
  const CUpti_CallbackData *d = cbdata;
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API &&
      domain != CUPTI_CB_DOMAIN_DRIVER_API)
    return;
  atomic_fetch_add(&fp_n_cupti_cb, 1);
  if (d->callbackSite == CUPTI_API_ENTER && d->functionName &&
      strstr(d->functionName, "aunch") && strstr(d->functionName, "Kernel"))
    atomic_fetch_add(&fp_n_cupti_launch, 1);
  if (fp_in_instrumented_launch())
    atomic_fetch_add(&fp_n_cupti_during, 1);
}

typedef CUptiResult (*subscribe_fn)(CUpti_SubscriberHandle *,
                                    CUpti_CallbackFunc, void *);
typedef CUptiResult (*enable_fn)(uint32_t, CUpti_SubscriberHandle,
                                 CUpti_CallbackDomain);

int fp_cupti_start(char *note, size_t size)
{
  static const char *const names[] = {
      "libcupti.so.13", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
      "/usr/local/cuda/lib64/libcupti.so.13", "libcupti.so"};
  void *h = NULL;
  const char *used = getenv("CL_FP_CUPTI");
  if (used && *used)
    h = dlopen(used, RTLD_NOW | RTLD_GLOBAL);
  for (size_t i = 0; !h && i < sizeof names / sizeof *names; i++)
    h = dlopen(used = names[i], RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    snprintf(note, size, "no CUPTI library: %s", dlerror());
    return -1;
  }
  subscribe_fn sub = (subscribe_fn)dlsym(h, "cuptiSubscribe");
  enable_fn en = (enable_fn)dlsym(h, "cuptiEnableDomain");
  if (!sub || !en) {
    snprintf(note, size, "%s lacks cuptiSubscribe", used);
    return -1;
  }
  CUpti_SubscriberHandle s;
  CUptiResult r = sub(&s, on_cupti, NULL);
  if (r != CUPTI_SUCCESS) {
    snprintf(note, size, "%s", used);
    return (int)r;
  }
  CUptiResult r1 = en(1, s, CUPTI_CB_DOMAIN_RUNTIME_API);
  CUptiResult r2 = en(1, s, CUPTI_CB_DOMAIN_DRIVER_API);
  snprintf(note, size, "%s enable=%d,%d", used, (int)r1, (int)r2);
  return (int)r;
}

const char *fp_cupti_name(int result)
{
  switch (result) {
  case -1: return "no-library";
  case CUPTI_SUCCESS: return "0(CUPTI_SUCCESS)";
  case CUPTI_ERROR_NOT_INITIALIZED: return "15(CUPTI_ERROR_NOT_INITIALIZED)";
  case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    return "39(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)";
  case CUPTI_ERROR_MAX_LIMIT_REACHED: return "12(CUPTI_ERROR_MAX_LIMIT_REACHED)";
  default: {
    static char buf[32];
    snprintf(buf, sizeof buf, "%d(other)", result);
    return buf;
  }
  }
}

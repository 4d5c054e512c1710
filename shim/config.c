/* config.c - reads the CUDALENS_* environment variables once, at load time,
 * into cl_cfg.  Every variable is documented in libcudalens(7). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

struct cl_config cl_cfg = {.output = "cudalens-%p.db",
                           .stack_depth = CL_MAX_FRAMES,
                           .gpu_activity = 1,
                           .kernel_times = 0,
                           .buffer_records = 4096,
                           .flush_ms = 200,
                           .python = 1};

static long env_long(const char *name, long def, long lo, long hi)
{
  const char *v = getenv(name);
  if (!v || !*v)
    return def;
  char *end;
  long x = strtol(v, &end, 10);
  if (*end || x < lo || x > hi) {
    CL_LOG(CL_LOG_WARN, "ignoring %s=%s (expected an integer from %ld to %ld)",
           name, v, lo, hi);
    return def;
  }
  return x;
}

void cl_config_load(void)
{
  const char *v;
  cl_cfg.debuglevel = (int)env_long("CUDALENS_DEBUGLEVEL", 0, 0, 3);
  if ((v = getenv("CUDALENS_OUTPUT")) && *v)
    cl_cfg.output = v;
  if ((v = getenv("CUDALENS_CUPTI_LIBRARY")) && *v)
    cl_cfg.cupti_library = v;
  if ((v = getenv("CUDALENS_MANIFEST")) && *v)
    cl_cfg.manifest = v;
  cl_cfg.disable = (int)env_long("CUDALENS_DISABLE", 0, 0, 1);
  cl_cfg.stack_depth =
      (int)env_long("CUDALENS_STACK_DEPTH", CL_MAX_FRAMES, 0, CL_MAX_FRAMES);
  cl_cfg.gpu_activity = (int)env_long("CUDALENS_GPU_ACTIVITY", 1, 0, 1);
  cl_cfg.kernel_times = (int)env_long("CUDALENS_KERNEL_TIMES", 0, 0, 1);
  long recs = env_long("CUDALENS_BUFFER_RECORDS", 4096, 64, 1 << 20);
  unsigned cap = 64;
  while (cap < (unsigned long)recs)
    cap <<= 1;
  cl_cfg.buffer_records = cap;
  cl_cfg.flush_ms = (unsigned)env_long("CUDALENS_FLUSH_MS", 200, 10, 60000);
  cl_cfg.python = (int)env_long("CUDALENS_PYTHON", 1, 0, 1);
  if ((v = getenv("CUDALENS_OVERFLOW")) && *v) {
    if (!strcmp(v, "drop"))
      cl_cfg.overflow_drop = 1;
    else if (strcmp(v, "block"))
      CL_LOG(CL_LOG_WARN, "ignoring CUDALENS_OVERFLOW=%s (block or drop)", v);
  }
  if (!getcwd(cl_cfg.cwd, sizeof cl_cfg.cwd))
    cl_cfg.cwd[0] = 0;
}

/* config.c - reads the CUDALENS_* environment variables once, at load time,
 * into cl_cfg.  Every variable is documented in libcudalens(7).  One pass
 * over environ picks them out (no getenv per variable: the shim's own
 * getenv wrapper would look up the C library's in every process, CUDA or
 * not; issue 24, item 10). */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"

struct cl_config cl_cfg = {.output = "cudalens-%p.db",
                           .stack_depth = CL_MAX_FRAMES,
                           .gpu_activity = 1,
                           .kernel_times = 0,
                           .buffer_records = 4096,
                           .flush_ms = 200,
                           .python = 1,
                           .cwd = ""};

/* The working directory at start.  Most paths fit the short buffer, which
 * lies with the start-up variables (shim.h) on a page that every process
 * touches anyway; a longer one goes to the long buffer, in .bss.  (A 4 KiB
 * array in cl_cfg made .data a page longer, a page that every process
 * copied; issue 24, item 10.) */
static char cwd_short[256] CL_STARTUP_DATA;
static char cwd_long[4096];

extern char **environ;

/* the variables read, and their values as environ had them at load time */
#define CL_ENV_VARS(X)                                                         \
  X(DEBUGLEVEL) X(OUTPUT) X(CUPTI_LIBRARY) X(MANIFEST) X(DISABLE)              \
  X(STACK_DEPTH) X(GPU_ACTIVITY) X(KERNEL_TIMES) X(BUFFER_RECORDS)             \
  X(FLUSH_MS) X(PYTHON) X(OVERFLOW) X(BENCH_PHASES)
enum {
#define CL_ENV_ID(n) ENV_##n,
  CL_ENV_VARS(CL_ENV_ID)
#undef CL_ENV_ID
  ENV_COUNT
};
/* (arrays, not pointers: nothing for the loader to relocate) */
static const char env_names[ENV_COUNT][16] = {
#define CL_ENV_NAME(n) #n,
    CL_ENV_VARS(CL_ENV_NAME)
#undef CL_ENV_NAME
};
#define PREFIX "CUDALENS_"

/* each variable's value from environ (the first of the name, as getenv
 * finds it), or NULL */
static void scan_environ(const char *env_values[ENV_COUNT])
{
  for (char **e = environ; e && *e; e++) {
    const char *s = *e;
    if (!cl_starts_with(s, CL_STARTUP_STR(PREFIX)))
      continue;
    s += sizeof PREFIX - 1;
    const char *eq = strchr(s, '=');
    if (!eq)
      continue;
    for (int i = 0; i < ENV_COUNT; i++)
      if (!env_values[i] && strlen(env_names[i]) == (size_t)(eq - s) &&
          !memcmp(s, env_names[i], (size_t)(eq - s)))
        env_values[i] = eq + 1;
  }
}

CL_STARTUP_CODE static long env_long(const char *const *env_values, int id, long def, long lo,
                     long hi)
{
  const char *name = env_names[id];
  const char *v = env_values[id];
  if (!v || !*v)
    return def;
  char *end;
  long x = strtol(v, &end, 10);
  if (*end || x < lo || x > hi) {
    CL_LOG(CL_LOG_WARN,
           "ignoring " PREFIX "%s=%s (expected an integer from %ld to %ld)",
           name, v, lo, hi);
    return def;
  }
  return x;
}

/* getcwd(2) straight from the kernel, as log.c's fstat: the C library's
 * getcwd is one more lazy binding to resolve in every process.  A path
 * that is not absolute (the kernel's "(unreachable)" for a directory
 * outside this root) fails, as the C library's getcwd fails it. */
static int cwd_into(char *buf, size_t size)
{
#if defined(SYS_getcwd) && (defined(__x86_64__) || defined(__aarch64__))
  long n = syscall(SYS_getcwd, buf, size);
  return n > 0 && buf[0] == '/';
#else
  return getcwd(buf, size) != NULL;
#endif
}

CL_STARTUP_CODE void cl_config_load(void)
{
  const char *v, *env_values[ENV_COUNT] = {NULL};
  scan_environ(env_values);
  cl_cfg.debuglevel = (int)env_long(env_values, ENV_DEBUGLEVEL, 0, 0, 3);
  if ((v = env_values[ENV_OUTPUT]) && *v)
    cl_cfg.output = v;
  if ((v = env_values[ENV_CUPTI_LIBRARY]) && *v)
    cl_cfg.cupti_library = v;
  if ((v = env_values[ENV_MANIFEST]) && *v)
    cl_cfg.manifest = v;
  cl_cfg.disable = (int)env_long(env_values, ENV_DISABLE, 0, 0, 1);
  cl_cfg.stack_depth = (int)env_long(env_values, ENV_STACK_DEPTH,
                                     CL_MAX_FRAMES, 0, CL_MAX_FRAMES);
  cl_cfg.gpu_activity = (int)env_long(env_values, ENV_GPU_ACTIVITY, 1, 0, 1);
  cl_cfg.kernel_times = (int)env_long(env_values, ENV_KERNEL_TIMES, 0, 0, 1);
  long recs = env_long(env_values, ENV_BUFFER_RECORDS, 4096, 64, 1 << 20);
  unsigned cap = 64;
  while (cap < (unsigned long)recs)
    cap <<= 1;
  cl_cfg.buffer_records = cap;
  cl_cfg.flush_ms =
      (unsigned)env_long(env_values, ENV_FLUSH_MS, 200, 10, 60000);
  cl_cfg.python = (int)env_long(env_values, ENV_PYTHON, 1, 0, 1);
  cl_cfg.bench_phases = (int)env_long(env_values, ENV_BENCH_PHASES, 0, 0, 1);
  if ((v = env_values[ENV_OVERFLOW]) && *v) {
    if (!strcmp(v, "drop"))
      cl_cfg.overflow_drop = 1;
    else if (strcmp(v, "block"))
      CL_LOG(CL_LOG_WARN, "ignoring CUDALENS_OVERFLOW=%s (block or drop)", v);
  }
  if (cwd_into(cwd_short, sizeof cwd_short))
    cl_cfg.cwd = cwd_short;
  else if (cwd_into(cwd_long, sizeof cwd_long))
    cl_cfg.cwd = cwd_long;
}

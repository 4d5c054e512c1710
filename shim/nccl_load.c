/* nccl_load.c - is NCCL loaded, and where are its functions?  After objects
 * were loaded (at the shim's start, after a dlopen, before a dlsym) and
 * while the shim records, the loaded objects are looked at for NCCL
 * (libnccl.so.N); the first one found gives the real functions of nccl.def
 * (looked up in it alone), and gotpatch.c routes the calls that other
 * objects make into it through the shim.  Nothing else is done: a process
 * without NCCL pays one look at the list of loaded objects per load. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "cudaload.h"
#include "gotpatch.h"
#include "nccl.h"
#include "nccl_load.h"
#include "objects.h"
#include "shim.h"

static _Atomic unsigned long long seen_adds;
static atomic_int pending; /* a look was asked for */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t nccl_start, nccl_end; /* under lock */
static char nccl_path[4096];

struct look {
  char path[4096];
  uintptr_t start, end;
};

static int look_at(struct dl_phdr_info *info, void *arg)
{
  struct look *l = arg;
  const char *name = info->dlpi_name;
  struct cl_span b;
  if (l->path[0] || !name || !*name ||
      strncmp(cl_object_name(info), "libnccl.so", 10) ||
      strlen(name) >= sizeof l->path || !cl_object_bounds(info, &b))
    return 0;
  strcpy(l->path, name);
  l->start = b.lo, l->end = b.hi;
  return 0;
}

/* the real functions, from NCCL at PATH; 0 when it has the collectives */
static int bind_real(const char *path)
{
  void *h = cl_dl_open_real(path, RTLD_LAZY | RTLD_NOLOAD);
  if (!h)
    return -1;
  for (unsigned i = 0; i < cl_nccl_count; i++)
    atomic_store_explicit(cl_nccl_fns[i].real, cl_dl_sym_real(h, cl_nccl_fns[i].name),
                          memory_order_release);
  dlclose(h);
  dlerror(); /* what the shim did leaves no error for the program */
  return atomic_load(cl_nccl_fns[0].real) ? 0 : -1;
}

/* fork: the lock is taken around it (shim_init.c) */
void cl_nccl_atfork_prepare(void) { pthread_mutex_lock(&lock); }
void cl_nccl_atfork_parent(void) { pthread_mutex_unlock(&lock); }
void cl_nccl_atfork_child(void) { pthread_mutex_init(&lock, NULL); }

/* under lock: look at the loaded objects once */
static void look(void)
{
  struct look l;
  memset(&l, 0, sizeof l);
  if (!cl_loaded_walk(&seen_adds, look_at, &l))
    return;
  if (!nccl_start && l.path[0]) {
    if (bind_real(l.path))
      CL_LOG(CL_LOG_WARN, "%s has no ncclAllReduce: NCCL calls are not "
                          "recorded", l.path);
    else {
      nccl_start = l.start, nccl_end = l.end;
      strcpy(nccl_path, l.path);
      CL_LOG(CL_LOG_INFO, "NCCL is loaded (%s)", l.path);
    }
  } else if (nccl_start && l.path[0] && strcmp(l.path, nccl_path)) {
    CL_LOG(CL_LOG_DEBUG, "a second NCCL (%s): calls into it are not "
                         "recorded", l.path);
  }
  if (nccl_start) {
    int n = cl_got_patch(nccl_start, nccl_end);
    if (n)
      CL_LOG(CL_LOG_DEBUG, "%d NCCL imports routed through the shim", n);
  }
}

/* Nobody waits for the lock (but fork): the looking thread takes the loader's
 * lock (bind_real's dlopen and dlsym) while a caller may hold it (a dlopen or
 * dlsym in a constructor).  A caller that finds the lock taken leaves a
 * request that the holder sees before it lets go, so no load goes unseen. */
void cl_nccl_maybe_loaded(void)
{
  if (!cl_nccl_enabled())
    return;
  atomic_store(&pending, 1);
  while (atomic_load(&pending)) {
    if (pthread_mutex_trylock(&lock))
      return; /* the holder looks again */
    while (atomic_exchange(&pending, 0))
      look();
    pthread_mutex_unlock(&lock);
  }
}

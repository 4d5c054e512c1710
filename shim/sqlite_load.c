/* sqlite_load.c - finds the SQLite functions of libcudalens.so's writer
 * (sqlite_api.h): libcudalens-sqlite.so, in the directory libcudalens.so
 * was loaded from, opened when the process starts to record (shim_init.c,
 * beside CUPTI's library, on the thread that starts the shim) with the C
 * library's dlopen, RTLD_LOCAL: the program's own SQLite, if any, is
 * neither seen nor changed.  Programs that link SQLite themselves (the unit
 * tests) get sqlite_lib.c's cl_sqlite_load instead (libclsqlite.la). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "shim.h"
#include "sqlite_api.h"

#define CL_SQLITE_NAME "libcudalens-sqlite.so"

const struct cl_sqlite_api *cl_sqlite;
/* DIR/libcudalens-sqlite.so for the DIR of this library's path, made
 * absolute with the working directory the shim started in (the program
 * may have changed it since) */
static int sibling(char *out, size_t n)
{
  Dl_info info;
  if (!dladdr((void *)sibling, &info) || !info.dli_fname)
    return -1;
  const char *self = info.dli_fname, *slash = strrchr(self, '/');
  int dir = slash ? (int)(slash - self) : 0;
  int r;
  if (self[0] == '/')
    r = snprintf(out, n, "%.*s/%s", dir, self, CL_SQLITE_NAME);
  else if (slash && cl_cfg.cwd[0])
    r = snprintf(out, n, "%s/%.*s/%s", cl_cfg.cwd, dir, self, CL_SQLITE_NAME);
  else if (slash) /* the working directory was not known at start */
    r = snprintf(out, n, "%.*s/%s", dir, self, CL_SQLITE_NAME);
  else
    r = snprintf(out, n, "%s", CL_SQLITE_NAME); /* found by the search */
  return r > 0 && (size_t)r < n ? 0 : -1;
}

int cl_sqlite_load(char *why, size_t n)
{
  if (__atomic_load_n(&cl_sqlite, __ATOMIC_ACQUIRE))
    return 0;
  /* two threads may both load it: the same handle, no lock to hold at fork */
  const struct cl_sqlite_api *t = NULL;
  char path[PATH_MAX + 64];
  if (!t && sibling(path, sizeof path))
    snprintf(why, n, "cannot tell where %s is", CL_SQLITE_NAME);
  else if (!t) {
    void *h = cl_dl_open_real(path, RTLD_NOW | RTLD_LOCAL);
    const struct cl_sqlite_api *s = h ? cl_dl_sym_real(h, CL_SQLITE_TABLE) : NULL;
    if (!h) {
      const char *e = dlerror();
      snprintf(why, n, "cannot load %s", e ? e : path);
    } else if (!s || s->size != sizeof *s)
      snprintf(why, n, "%s is not this version's", path);
    else
      t = s;
  }
  if (t)
    __atomic_store_n(&cl_sqlite, t, __ATOMIC_RELEASE);
  return t ? 0 : -1;
}

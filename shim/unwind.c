/* unwind.c - binds libgcc's unwinder (cl_unwind.h) when the shim starts.
 * The shim does not link libgcc_s: every process it is preloaded into would
 * load it, and run its constructor, for nothing until CUDA appears (issue
 * 24, defect 10).  A CUDA program has it loaded already (the C++ runtime,
 * the CUDA libraries need it); otherwise it is loaded here.  Without it,
 * call stacks are empty. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "cl_unwind.h"
#include "shim.h"

struct cl_unwind cl_unwind;

_Unwind_Reason_Code (*cl_unwind_backtrace(void))(_Unwind_Trace_Fn, void *)
{
  __typeof__(cl_unwind.backtrace) bt =
      __atomic_load_n(&cl_unwind.backtrace, __ATOMIC_ACQUIRE);
  if (bt)
    return bt;
  /* the C library's dlopen and dlsym, not the shim's wrappers (dlreal.c) */
  void *h = cl_dl_open_real("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h)
    h = cl_dl_open_real("libgcc_s.so.1", RTLD_NOW);
  if (!h)
    return NULL;
  struct cl_unwind u;
  *(void **)&u.get_ip = cl_dl_sym_real(h, "_Unwind_GetIP");
  *(void **)&u.get_cfa = cl_dl_sym_real(h, "_Unwind_GetCFA");
  *(void **)&u.get_gr = cl_dl_sym_real(h, "_Unwind_GetGR");
  *(void **)&u.backtrace = cl_dl_sym_real(h, "_Unwind_Backtrace");
  if (!u.get_ip || !u.get_cfa || !u.get_gr || !u.backtrace)
    return NULL; /* the handle stays: it is libgcc_s, loaded for good */
  cl_unwind.get_ip = u.get_ip;
  cl_unwind.get_cfa = u.get_cfa;
  cl_unwind.get_gr = u.get_gr;
  __atomic_store_n(&cl_unwind.backtrace, u.backtrace, __ATOMIC_RELEASE);
  return u.backtrace;
}

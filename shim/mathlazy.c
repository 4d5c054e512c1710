/* mathlazy.c - the C math functions that the SQLite linked into the shim
 * refers to (its SQL math functions and FTS5's ranking), bound from
 * libm.so.6 the first time one is called.  Linked statically, SQLite would
 * otherwise make libm.so.6 a dependency of libcudalens.so, and every process
 * the shim is preloaded into, most of which never use CUDA, would load and
 * relocate libm at start-up (issue 24, item 10: about 30 us of the shim's
 * start-up cost).  The shim's own SQL calls none of them; they are hidden,
 * so the program's own calls go to libm exactly as before.  Where SQLite is
 * a shared library these definitions are unused. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "shim.h"

/* name, arity: every libm function a SQLite build refers to (a function
 * not in this list keeps libm a dependency, which is only slower) */
#define CL_MATH_FUNCTIONS(X)                                                   \
  X(acos, 1) X(acosh, 1) X(asin, 1) X(asinh, 1) X(atan, 1) X(atan2, 2)         \
  X(atanh, 1) X(ceil, 1) X(cos, 1) X(cosh, 1) X(exp, 1) X(floor, 1)            \
  X(fmod, 2) X(log, 1) X(log10, 1) X(log2, 1) X(pow, 2) X(sin, 1)              \
  X(sinh, 1) X(sqrt, 1) X(tan, 1) X(tanh, 1) X(trunc, 1)

/* libm, opened once; concurrent first calls may both look it up (dlopen
 * of a loaded library returns the same handle) */
static void *libm_symbol(const char *name)
{
  static void *handle;
  void *h = __atomic_load_n(&handle, __ATOMIC_ACQUIRE);
  if (!h) {
    h = cl_dl_open_real("libm.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!h)
      return NULL;
    __atomic_store_n(&handle, h, __ATOMIC_RELEASE);
  }
  return cl_dl_sym_real(h, name);
}

/* what a function that cannot be found returns: not a number, as libm does
 * for arguments outside a function's domain */
#define CL_NAN __builtin_nan("")

#define CL_ARGS_1 double x
#define CL_ARGS_2 double x, double y
#define CL_PASS_1 x
#define CL_PASS_2 x, y
#define CL_MATH_DEFINE(name, n)                                                \
  double name(CL_ARGS_##n) CL_HIDDEN;                                          \
  double name(CL_ARGS_##n)                                                     \
  {                                                                            \
    static double (*real)(CL_ARGS_##n);                                        \
    double (*f)(CL_ARGS_##n) = __atomic_load_n(&real, __ATOMIC_ACQUIRE);       \
    if (!f) {                                                                  \
      f = (double (*)(CL_ARGS_##n))libm_symbol(#name);                         \
      if (!f)                                                                  \
        return CL_NAN;                                                         \
      __atomic_store_n(&real, f, __ATOMIC_RELEASE);                            \
    }                                                                          \
    return f(CL_PASS_##n);                                                     \
  }
CL_MATH_FUNCTIONS(CL_MATH_DEFINE)

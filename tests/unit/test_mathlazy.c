/* test_mathlazy.c - the shim's math functions (shim/mathlazy.c), which its
 * statically linked SQLite calls instead of libm's, give libm's results
 * bit for bit: each is compared with the function looked up in libm.so.6
 * directly, on arguments inside and outside its domain.  Linked with
 * libclshim.la, whose hidden definitions take this program's calls. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>

#include "unit.h"

typedef double (*f1)(double);
typedef double (*f2)(double, double);

static const double args[] = {-2.5, -1.0, -0.25, 0.0, 0.5, 1.0, 2.0, 10.0, 1e300};
#define NARGS (sizeof args / sizeof args[0])

static int same(double a, double b)
{
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void one(void *libm, const char *name, f1 mine)
{
  f1 theirs = (f1)dlsym(libm, name);
  CHECK(theirs != NULL);
  if (!theirs)
    return;
  for (unsigned i = 0; i < NARGS; i++)
    if (!same(mine(args[i]), theirs(args[i]))) {
      fprintf(stderr, "%s(%g): %.17g, libm %.17g\n", name, args[i],
              mine(args[i]), theirs(args[i]));
      unit_failures++;
    }
}

static void two(void *libm, const char *name, f2 mine)
{
  f2 theirs = (f2)dlsym(libm, name);
  CHECK(theirs != NULL);
  if (!theirs)
    return;
  for (unsigned i = 0; i < NARGS; i++)
    for (unsigned j = 0; j < NARGS; j++)
      if (!same(mine(args[i], args[j]), theirs(args[i], args[j]))) {
        fprintf(stderr, "%s(%g, %g): %.17g, libm %.17g\n", name, args[i],
                args[j], mine(args[i], args[j]), theirs(args[i], args[j]));
        unit_failures++;
      }
}

int main(void)
{
  void *libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  CHECK(libm != NULL);
  if (!libm)
    UNIT_DONE();
  /* through pointers, so that the compiler calls the functions */
  one(libm, "acos", acos); one(libm, "acosh", acosh); one(libm, "asin", asin);
  one(libm, "asinh", asinh); one(libm, "atan", atan); one(libm, "atanh", atanh);
  one(libm, "ceil", ceil); one(libm, "cos", cos); one(libm, "cosh", cosh);
  one(libm, "exp", exp); one(libm, "floor", floor); one(libm, "log", log);
  one(libm, "log10", log10); one(libm, "log2", log2); one(libm, "sin", sin);
  one(libm, "sinh", sinh); one(libm, "sqrt", sqrt); one(libm, "tan", tan);
  one(libm, "tanh", tanh); one(libm, "trunc", trunc);
  two(libm, "atan2", atan2); two(libm, "fmod", fmod); two(libm, "pow", pow);
  UNIT_DONE();
}

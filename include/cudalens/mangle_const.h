/* mangle_const.h - which pointer parameters of a kernel point to const,
 * read from its Itanium-mangled name (_Z5saxpyPfPKfif: param 0 float*,
 * param 1 const float*, ...).  The race analysis counts an argument passed
 * through a const pointer parameter as a read, and every other pointer
 * (non-const pointers, pointers inside structs passed by value) as a
 * possible write. */
#ifndef CUDALENS_MANGLE_CONST_H
#define CUDALENS_MANGLE_CONST_H

#include <stddef.h>

enum param_class {
  PARAM_OTHER = 0,     /* not a pointer, or unknown (by-value struct, ...) */
  PARAM_PTR = 1,       /* pointer to non-const */
  PARAM_PTR_CONST = 2  /* pointer to const */
};

/* Classify the parameters of mangled function NAME into OUT[0..MAX).
 * Returns the number of parameters (may exceed MAX; only MAX are stored),
 * or -1 when NAME is not a mangled name this parser understands (extern
 * "C" kernels, unusual constructs): then nothing is known. */
int mangle_param_classes(const char *name, enum param_class *out, size_t max);

#endif

/* visibility.h - the two visibility attributes, spelled once.  The shim is
 * built with -fvisibility=hidden: CL_EXPORT marks what libcudalens.so
 * exports on purpose (the functions it interposes), CL_HIDDEN a
 * declaration that stays inside the object that links it, seen from every
 * file that includes it (so that calls bind locally; the common/ code the
 * launcher links too, what the shim's assembly calls). */
#ifndef CUDALENS_VISIBILITY_H
#define CUDALENS_VISIBILITY_H

#define CL_EXPORT __attribute__((visibility("default")))
#define CL_HIDDEN __attribute__((visibility("hidden")))

#endif

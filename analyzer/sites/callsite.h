/* callsite.h - the user's call site of a recorded CUDA call: the frame of
 * its stack (stacks.frames, innermost first) that belongs to the user's
 * program rather than to CUDA, vendor, framework or system libraries (or to
 * a statically linked cudart inside the program), symbolized to
 * file:line and function; for calls made from Python, also the innermost
 * Python frame of calls.pystack outside the framework and the standard
 * library.  Results are cached per stack id and per pystack id.  The
 * recording is read through model/ (model/stacks.h: struct
 * callsite_source): this file sees addresses and text, never SQL. */
#ifndef CL_REPORT_CALLSITE_H
#define CL_REPORT_CALLSITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sites/location.h"
#include "sites/symbolize.h"

struct callsite {
  const char *file;     /* source file, NULL without line info */
  int line;             /* 0 without line info */
  const char *function; /* demangled, NULL if unknown */
  const char *module;   /* path of the object, NULL if unknown */
  uint64_t offset;      /* address - module bias ("module+0xoffset") */
  uint64_t address;     /* the recorded return address */
  int frame;            /* index in the stack (0 = innermost), -1: none */
  /* Python (callsite_resolve_call only; NULL / 0 / -1 otherwise) */
  const char *py_file;     /* as recorded (co_filename) */
  int py_line;
  const char *py_function;
  int py_frame;            /* index in calls.pystack, -1: none chosen */
  const char *py_stack;    /* the whole recorded Python stack, or NULL */
  int64_t stack_id;        /* calls.stack, -1: none */
  int64_t pystack_id;      /* calls.pystack, -1: none */
  /* the CUDA function the program called, when the stack shows it: the
   * outermost frame between the recorded call and the user's frame that
   * is a CUDA entry point compiled into the program (cuda_runtime.h's
   * inline templates: cudaMallocHost<T>() calls cudaHostAlloc), without
   * template arguments or parameters; NULL when none */
  const char *called_api;
};

/* what the resolver reads of a recording: its loaded objects, and three
 * lookups by id, each made once per id (the results are cached) */
struct callsite_source {
  const struct sym_module *modules; /* copied by callsites_new */
  size_t nmodules;
  void *arg;                        /* of the lookups; outlives the result */
  /* the return addresses of stack ID (stacks.frames), innermost first,
   * into *FRAMES (malloc'd, for the caller to free); their number, 0
   * (*FRAMES NULL) when there is no such stack */
  size_t (*stack)(void *arg, int64_t id, uint64_t **frames);
  /* the Python stack of strings id ID ("file:line:function" lines,
   * innermost first), NULL when there is none; lives as long as ARG */
  const char *(*pystack)(void *arg, int64_t id);
  /* calls.stack and calls.pystack of call SEQ, -1 for none */
  void (*call)(void *arg, int64_t seq, int64_t *stack, int64_t *pystack);
};

struct callsites;

struct callsites *callsites_new(const struct callsite_source *src);
void callsites_free(struct callsites *cs);

/* Fill *OUT with the user's frame of stack STACK_ID (calls.stack).
 * Returns 0, or -1 when the stack is absent or has no user frame (then
 * *OUT is zeroed with frame = -1).  Strings live as long as CS. */
int callsite_resolve(struct callsites *cs, int64_t stack_id,
                     struct callsite *out);

/* Fill *OUT for the call with calls.seq SEQ: the native site of its stack
 * as callsite_resolve does, and, when the call came from Python, its
 * Python site (py_*).  Returns 0 when either site was found, -1 when
 * neither (or the call is unknown).  Strings live as long as CS. */
int callsite_resolve_call(struct callsites *cs, int64_t seq,
                          struct callsite *out);
/* The same from the ids of calls.stack and calls.pystack, for analyses
 * that already read them; -1 (NULL) for none (a pystack id of 0 too). */
int callsite_resolve_ids(struct callsites *cs, int64_t stack_id,
                         int64_t pystack_id, struct callsite *out);

/* All frames of a stack, innermost first, symbolized; NULL/0 when absent.
 * The array lives as long as CS. */
const struct sym_frame *const *callsite_stack(struct callsites *cs,
                                              int64_t stack_id, size_t *n);

/* A location for a call site (borrowed strings: findings_add and
 * finding_add_related copy them).  The Python site is preferred when there
 * is one and the native site is missing, has no file:line, or lies in a
 * Python installation (callsite_python_module): then the call came from
 * Python code through an extension module, ctypes or libffi. */
struct location callsite_location(const struct callsite *c);

/* --stack=N: give location L the up to DEPTH - 1 frames that called it
 * (location.callers), from the stack its place was chosen from: the native
 * frames outside it, or the Python frames outside it for a place in Python
 * code.  A location that has its callers already keeps them. */
void callsite_fill_callers(struct callsites *cs, struct location *l,
                           size_t depth);

/* The name of the CUDA function the program called for a recorded call of
 * API (with or without its _vNNNN, _ptsz or _ptds suffix) from stack STACK_ID, into BUF:
 * the stack's called_api when it shows one; else API itself, or, where a
 * cuda_runtime.h template that may have been inlined calls API under
 * another name ("cudaMallocHost/cudaHostAlloc"), both names. */
const char *callsite_user_api(struct callsites *cs, int64_t stack_id,
                              const char *api, char *buf, size_t len);

/* The NVIDIA library (libcudnn*, libcublas*, libnccl*...) whose code made
 * the call of stack STACK_ID: the module of its innermost frame outside
 * CUDA's own libraries and the system's, when that is one of NVIDIA's
 * libraries built on CUDA; NULL for the program, a framework, or an
 * unknown frame.  A basename, borrowed from the recording's modules. */
const char *callsite_issuing_library(struct callsites *cs, int64_t stack_id);

/* The rules, exposed for tests and for other analyses. */
bool callsite_vendor_module(const char *path);
/* how many distinct addresses were symbolized so far: a vendor library's
 * frames only when something prints them (their files, libtorch_cuda.so
 * and the like, are large: each lookup scans the symbol table) */
size_t callsite_symbolized(const struct callsites *cs);
bool callsite_vendor_function(const char *name);
/* the native object belongs to a Python installation or package:
 * site-packages, dist-packages, lib-dynload, lib/pythonX.Y, libffi */
bool callsite_python_module(const char *path);
/* a Python file that never holds the user's call site: torch/, nvidia/,
 * triton/ packages, the standard library (lib/pythonX.Y outside
 * site-packages), <frozen ...> modules */
bool callsite_vendor_pyfile(const char *file);
/* a Python file of an installed package (under site-packages/ or
 * dist-packages/): chosen only when no frame is the user's own */
bool callsite_installed_pyfile(const char *file);

#endif

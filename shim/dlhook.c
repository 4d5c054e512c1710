/* dlhook.c - notices CUDA libraries loaded after start-up.  dlopen() and
 * dlsym() are interposed; after a dlopen() and before a dlsym() the shim looks
 * for newly loaded CUDA libraries (cl_cuda_maybe_loaded), so that CUPTI is
 * subscribed before the program can call into them.
 *
 * glibc's dlopen() searches the DT_RPATH/DT_RUNPATH of the object that called
 * it (and expands $ORIGIN with it), and dlsym(RTLD_NEXT) and dlsym(RTLD_DEFAULT)
 * depend on the caller too: the caller is found from the return address.
 * So the wrappers must not change it.  Each one is a small assembler stub that
 * asks a C function what to do and then jumps (not calls) to the real
 * function, which sees the program's own return address.  Only a dlopen()
 * whose result cannot depend on the caller (a name with a slash and no '$',
 * or a caller whose library search path is the shim's own) is made from
 * here, so that the shim can look at what it loaded before the program
 * continues.  Once the shim has started to record, the same dlopen()s are
 * made from here to look for NCCL among what they loaded (nccl_load.c), and
 * dlsym() looks for it too; once it decided not to record, both wrappers
 * only jump.  On other architectures nothing is interposed.  The shim's own
 * lookups bypass both (dlreal.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "cudaload.h"
#include "nccl.h"
#include "nccl_load.h"
#include "shim.h"
#include "shim_init.h"

/* the real functions (dlreal.c); read by the stubs (aligned pointer loads) */
extern void *cl_real_dlopen CL_HIDDEN;
extern void *cl_real_dlsym CL_HIDDEN;

int cl_dlopen_route(const char *file, int mode, void *caller) CL_HIDDEN;
void *cl_dlopen_direct(const char *file, int mode) CL_HIDDEN;
void cl_dlsym_hook(void) CL_HIDDEN;

#if defined(__x86_64__)
#ifdef __CET__
#define CL_ENTRY "endbr64\n"
#else
#define CL_ENTRY ""
#endif
/* Arguments are kept on the stack around the C call (three pushes keep the
 * stack 16-byte aligned); the return address at 24(%rsp) is the caller. */
__asm__(".text\n"
        ".globl dlopen\n"
        ".type dlopen, @function\n"
        ".p2align 4\n"
        "dlopen:\n"
        ".cfi_startproc\n" CL_ENTRY
        "pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "pushq %rsi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "movq 24(%rsp), %rdx\n"
        "call cl_dlopen_route\n"
        "addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "popq %rsi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "testl %eax, %eax\n"
        "jnz 1f\n"
        "jmp *cl_real_dlopen(%rip)\n"
        "1: jmp cl_dlopen_direct\n"
        ".cfi_endproc\n"
        ".size dlopen, .-dlopen\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        ".p2align 4\n"
        "dlsym:\n"
        ".cfi_startproc\n" CL_ENTRY
        "pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "pushq %rsi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "call cl_dlsym_hook\n"
        "addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "popq %rsi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "jmp *cl_real_dlsym(%rip)\n"
        ".cfi_endproc\n"
        ".size dlsym, .-dlsym\n");
#define CL_DLHOOK 1
#elif defined(__aarch64__)
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define CL_ENTRY "bti c\n"
#else
#define CL_ENTRY ""
#endif
/* x30 (the link register) is the caller; arguments are kept in the frame
 * around the C call.  x16 is the intra-procedure-call scratch register. */
__asm__(".text\n"
        ".globl dlopen\n"
        ".type dlopen, %function\n"
        ".p2align 3\n"
        "dlopen:\n"
        ".cfi_startproc\n" CL_ENTRY
        "stp x29, x30, [sp, #-32]!\n"
        ".cfi_def_cfa_offset 32\n"
        ".cfi_offset 29, -32\n"
        ".cfi_offset 30, -24\n"
        "mov x29, sp\n"
        "stp x0, x1, [sp, #16]\n"
        "mov x2, x30\n"
        "bl cl_dlopen_route\n"
        "mov w9, w0\n"
        "ldp x0, x1, [sp, #16]\n"
        "ldp x29, x30, [sp], #32\n"
        ".cfi_restore 29\n"
        ".cfi_restore 30\n"
        ".cfi_def_cfa_offset 0\n"
        "cbnz w9, 1f\n"
        "adrp x16, cl_real_dlopen\n"
        "ldr x16, [x16, #:lo12:cl_real_dlopen]\n"
        "br x16\n"
        "1: b cl_dlopen_direct\n"
        ".cfi_endproc\n"
        ".size dlopen, .-dlopen\n"
        ".globl dlsym\n"
        ".type dlsym, %function\n"
        ".p2align 3\n"
        "dlsym:\n"
        ".cfi_startproc\n" CL_ENTRY
        "stp x29, x30, [sp, #-32]!\n"
        ".cfi_def_cfa_offset 32\n"
        ".cfi_offset 29, -32\n"
        ".cfi_offset 30, -24\n"
        "mov x29, sp\n"
        "stp x0, x1, [sp, #16]\n"
        "bl cl_dlsym_hook\n"
        "ldp x0, x1, [sp, #16]\n"
        "ldp x29, x30, [sp], #32\n"
        ".cfi_restore 29\n"
        ".cfi_restore 30\n"
        ".cfi_def_cfa_offset 0\n"
        "adrp x16, cl_real_dlsym\n"
        "ldr x16, [x16, #:lo12:cl_real_dlsym]\n"
        "br x16\n"
        ".cfi_endproc\n"
        ".size dlsym, .-dlsym\n");
#define CL_DLHOOK 1
#endif

#ifdef CL_DLHOOK
/* ---- does the caller of dlopen() matter? ---------------------------------- */

static struct link_map *self_map(void)
{
  static struct link_map *self;
  struct link_map *m = __atomic_load_n(&self, __ATOMIC_ACQUIRE);
  Dl_info info;
  if (!m && dladdr1((void *)self_map, &info, (void **)&m, RTLD_DL_LINKMAP))
    __atomic_store_n(&self, m, __ATOMIC_RELEASE);
  return m;
}

/* The directories glibc would search for a name dlopen()ed by the object
 * of map (its DT_RPATH chain, LD_LIBRARY_PATH, its DT_RUNPATH, the system
 * directories unless it has DF_1_NODEFLIB), or NULL. */
static Dl_serinfo *search_path(struct link_map *map)
{
  Dl_serinfo size;
  if (dlinfo(map, RTLD_DI_SERINFOSIZE, &size))
    return NULL;
  Dl_serinfo *s = malloc(size.dls_size);
  if (!s)
    return NULL;
  *s = size;
  if (dlinfo(map, RTLD_DI_SERINFO, s)) {
    free(s);
    return NULL;
  }
  return s;
}

static int same_path(const Dl_serinfo *a, const Dl_serinfo *b)
{
  if (a->dls_cnt != b->dls_cnt)
    return 0;
  for (unsigned i = 0; i < a->dls_cnt; i++)
    if (strcmp(a->dls_serpath[i].dls_name, b->dls_serpath[i].dls_name))
      return 0;
  return 1;
}

/* Would a dlopen() of a bare name made here find what the caller's would?
 * (Both search the names already loaded first, the same way.) */
static int same_search(void *caller)
{
  static Dl_serinfo *mine;
  struct link_map *self = self_map(), *cm = NULL;
  Dl_info info;
  if (!self)
    return 0;
  if (!dladdr1(caller, &info, (void **)&cm, RTLD_DL_LINKMAP) || !cm) {
    /* not in any object (generated code): glibc takes the executable */
    for (cm = self; cm->l_prev; cm = cm->l_prev)
      ;
  }
  if (cm == self)
    return 1;
  Dl_serinfo *m = __atomic_load_n(&mine, __ATOMIC_ACQUIRE);
  if (!m) {
    Dl_serinfo *fresh = search_path(self), *none = NULL;
    if (!fresh)
      return 0;
    if (__atomic_compare_exchange_n(&mine, &none, fresh, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
      m = fresh;
    else {
      free(fresh);
      m = none;
    }
  }
  Dl_serinfo *theirs = search_path(cm);
  int same = theirs && same_path(m, theirs);
  free(theirs);
  return same;
}

/* ---- the C halves of the stubs --------------------------------------------- */

/* 1: call dlopen() from here (cl_dlopen_direct), 0: jump to it. */
int cl_dlopen_route(const char *file, int mode, void *caller)
{
  int saved = errno;
  cl_dl_bind_real();
  int direct = 0;
  if ((cl_shim_waiting() || cl_nccl_enabled()) && file &&
      !(mode & RTLD_NOLOAD) && !strchr(file, '$'))
    direct = strchr(file, '/') || same_search(caller);
  errno = saved;
  return direct;
}

void *cl_dlopen_direct(const char *file, int mode)
{
  void *h = ((void *(*)(const char *, int))cl_real_dlopen)(file, mode);
  if (h) {
    int saved = errno;
    if (cl_cuda_maybe_loaded())
      dlerror(); /* what the shim did leaves no error for the program */
    cl_nccl_maybe_loaded();
    errno = saved;
  }
  return h;
}

/* Before the shim's constructor, and inside the shim's own walk of the
 * loaded objects, dlsym() is only bound, without a look for CUDA.  A
 * sanitizer's runtime binds its interceptors with dlsym() as it starts,
 * and they cannot be called until it has; the look walks the loaded
 * objects with dl_iterate_phdr(), which sanitizers intercept.
 * ThreadSanitizer starts from the program's .preinit_array, before every
 * constructor; MemorySanitizer at its first intercepted call, which was
 * that walk in the shim's constructor: every program built with either
 * crashed under the shim.  The constructor looks for CUDA itself; CUDA
 * called from an earlier constructor after a dlopen() that was not made
 * from here (dlopen's route above) is recorded from the constructor on. */
void cl_dlsym_hook(void)
{
  int saved = errno;
  cl_dl_bind_real();
  if (cl_shim_constructed() && !cl_loaded_walking()) {
    if (cl_shim_waiting())
      cl_cuda_maybe_loaded(); /* the real dlsym() resets dlerror() */
    else
      cl_nccl_maybe_loaded();
  }
  errno = saved;
}

#endif

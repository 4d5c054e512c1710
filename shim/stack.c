/* stack.c - records the return-address chain of a CUDA call.  Frames inside
 * libcudalens and CUPTI are left out; frames inside the driver and the
 * runtime are kept and skipped later by cudalens-report, which resolves the
 * addresses to function, file and line.  The walk stops at the first frame
 * inside the C library (thread start, process start, a libc callback): the
 * user's innermost frames are below it, and unwinding past the outermost
 * frames is the slowest part of a walk.  A call that has a Python stack
 * (pyframes.c) asks the walk to stop at the first frame inside the Python
 * interpreter too (CL_STACK_TO_PYTHON): the frames above it run the
 * Python code that stack shows, and the report takes its Python site
 * from there (analyzer/sites/callsite.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cl_unwind.h"
#include "objects.h"
#include "selftime.h"
#include "shim.h"
#include "stack.h"
#include "threadmem.h"

/* the shim itself; [lo, hi) ranges skipped (CUPTI) and where the walk
 * stops (libc) */
static struct cl_span self;
#define MAX_SPANS 8
static struct cl_span skip[MAX_SPANS], stop[MAX_SPANS];
static size_t nskip, nstop;
/* the Python interpreter's code, once pyframes.c found a Python it reads */
static struct cl_span pystop[MAX_SPANS];
static _Atomic int npystop;

static int add_spans(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  (void)arg;
  const char *base = cl_object_name(info);
  if (!strncmp(base, "libc.so", 7))
    cl_object_exec(info, stop, &nstop, MAX_SPANS);
  if (!strncmp(base, "libcupti.so", 11))
    cl_object_exec(info, skip, &nskip, MAX_SPANS);
  return 0;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  return cl_object_holds(info, (uintptr_t)arg) &&
         cl_object_bounds(info, &self);
}

static int add_python(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  if (!cl_object_holds(info, (uintptr_t)arg))
    return 0;
  size_t n = 0;
  cl_object_exec(info, pystop, &n, MAX_SPANS);
  atomic_store_explicit(&npystop, (int)n, memory_order_release);
  return 1;
}

void cl_stack_python_at(const void *code)
{
  if (!atomic_load_explicit(&npystop, memory_order_acquire))
    dl_iterate_phdr(add_python, (void *)(uintptr_t)code);
}

void cl_stack_init(void)
{
  cl_unwind_backtrace(); /* bound now, not in a signal handler */
  dl_iterate_phdr(find_self, (void *)(uintptr_t)&cl_stack_init);
  dl_iterate_phdr(add_spans, NULL); /* CUPTI is loaded by now */
}

/* ---- the walk -------------------------------------------------------------
 * libgcc's unwinder interprets the DWARF CFI of every frame, which costs
 * microseconds per call through the driver (25 us for 32 frames of a
 * PyTorch process on an H100).  The shim therefore learns, per return
 * address, how to find the frame's canonical frame address (CFA) and the
 * caller's frame pointer, and later walks follow those rules directly,
 * reading each return address from CFA - 8 (x86-64).  The rules, learned
 * from libgcc's walks:
 *   SP   the CFA is the stack pointer at the call plus k (constant at a call
 *        site unless the function moves its stack pointer, as alloca does);
 *   FP   the CFA is the frame pointer (rbp) plus 16: a function that uses
 *        alloca keeps a frame pointer, and its CFA is rbp + 16 wherever
 *        its stack pointer is (ctypes' calls into C, for one); or, for a
 *        function that realigns its stack (GCC's "DRAP": the CFA is kept
 *        in a register saved below the frame pointer; cuBLASLt's kernels'
 *        callers, for one), the CFA is the word at rbp - c;
 * and for the caller's rbp: the same as this frame's, saved at CFA - 8d,
 * or saved where rbp points (a realigned frame's push rbp; mov rbp, rsp);
 * and END (SP with k = 0) for the outermost frame of a walk that libgcc
 * took to its end (a program linked statically, whose C library is no
 * separate object where walks stop).
 * A walk that meets an address it has not learned, or one whose rule it
 * cannot follow, falls back to libgcc; a thread's first walk, and then
 * one walk in an interval, is done by libgcc anyway and checks what was
 * learned (a rule that disagrees becomes VARIABLE: libgcc from then on).
 * The interval starts at 1024 walks and doubles, to 65536, while checks
 * find every rule as it was (no rule of the process changed during the
 * check): in a PyTorch process a libgcc walk costs ~0.1-0.4 ms, and at
 * one in 1024 walks the checks were ~1% of a training step.  Reads stay
 * inside the thread's stack.  Other architectures always use libgcc.
 *
 * What is learned is the same for every thread (it belongs to the code), so
 * one table serves the process: 64k slots (512 KiB, allocated at the first
 * walk), each one 64-bit word read and written atomically: the address in
 * bits 0-46, k/8 in 47-57 (FP: k = 16 for rbp + 16, k = 8192 + c for the
 * word at rbp - c), d in 58-61 (0: rbp unchanged, 14: where rbp points,
 * 15: unknown), the rule in 62-63.  A PyTorch process returns through
 * thousands of distinct addresses; a per-thread table of 1024 slots
 * overflowed. */
#define LEARNED_BITS 16
#define LEARNED (1u << LEARNED_BITS)
#define PROBES 32
enum { RULE_NONE = 0, RULE_SP, RULE_FP, RULE_VARIABLE };
#define IP_BITS 47
#define K_MAX (2047 * 8)
#define RBP_SAME 0
#define RBP_AT_FP 14
#define RBP_UNKNOWN 15
#define FP_DEREF 8192 /* an FP rule's k from here on: the CFA is at rbp - c */
#define SLOT_IP(w) ((w) & ((1ull << IP_BITS) - 1))
#define SLOT_K(w) (((intptr_t)(((w) >> IP_BITS) & 2047) * 8))
#define SLOT_D(w) ((unsigned)((w) >> 58) & 15)
#define SLOT_RULE(w) ((unsigned)((w) >> 62))
#define SLOT(ip, k, d, rule)                                                   \
  ((uint64_t)(ip) | ((uint64_t)((k) / 8) << IP_BITS) | ((uint64_t)(d) << 58) | \
   ((uint64_t)(rule) << 62))
static _Atomic(_Atomic uint64_t *) learned;
/* changed whenever a word of the table is written: a walk remembered
 * (struct memo) followed the rules of one generation */
static _Atomic unsigned rules_gen;
#define CHECK_FIRST 1024u
#define CHECK_MAX 65536u
static __thread unsigned walks_left;     /* fast walks before the next check */
static __thread unsigned check_interval; /* 0: none yet (CHECK_FIRST) */
static __thread unsigned long slow_walks; /* by libgcc */
static __thread uintptr_t stack_lo, stack_hi;

unsigned long cl_stack_slow_walks(void) { return slow_walks; }

static _Atomic uint64_t *learned_table(void)
{
  _Atomic uint64_t *t = atomic_load_explicit(&learned, memory_order_acquire);
  if (t)
    return t;
  _Atomic uint64_t *fresh = calloc(LEARNED, sizeof *fresh);
  if (!fresh)
    return NULL;
  if (!atomic_compare_exchange_strong(&learned, &t, fresh)) {
    free(fresh); /* another thread was first: t is its table */
    return t;
  }
  return fresh;
}

static unsigned slot_hash(uintptr_t ip)
{
  return cl_hash_bits(ip, LEARNED_BITS);
}

/* The slot that holds ip, or the empty one where it would go, with its
 * word in *w (0 when empty); NULL when the slots ip may use are taken. */
static _Atomic uint64_t *slot_of(_Atomic uint64_t *t, uintptr_t ip,
                                 uint64_t *w)
{
  unsigned h = slot_hash(ip);
  for (unsigned k = 0; k < PROBES; k++) {
    _Atomic uint64_t *slot = &t[(h + k) & (LEARNED - 1)];
    *w = atomic_load_explicit(slot, memory_order_relaxed);
    if (!*w || SLOT_IP(*w) == ip)
      return slot;
  }
  return NULL;
}

/* A word at a lies inside this thread's stack (a may be any value: a
 * register that held no pointer, or an address computed from one). */
static int in_stack(uintptr_t a)
{
  return a >= stack_lo && a < stack_hi && stack_hi - a >= 8;
}

/* The word at a, which need not be aligned (a frame's rbp may hold any
 * value; C leaves a misaligned load through a pointer undefined, memcpy
 * is one plain load on x86-64) */
static inline uintptr_t word_at(uintptr_t a)
{
  uintptr_t v;
  memcpy(&v, (const void *)a, sizeof v);
  return v;
}

/* One frame seen by libgcc: at return address ip, the stack pointer was sp
 * and rbp held rbp; its CFA is cfa, where its caller's rbp is caller_rbp. */
struct observed {
  uintptr_t ip, sp, rbp, cfa, caller_rbp;
};

static int rbp_at_fp(const struct observed *o)
{
  return in_stack(o->rbp) && word_at(o->rbp) == o->caller_rbp;
}

/* Where the frame keeps its caller's rbp: RBP_SAME, d of CFA - 8d,
 * RBP_AT_FP or RBP_UNKNOWN. */
static unsigned rbp_save_of(const struct observed *o)
{
  if (o->caller_rbp == o->rbp)
    return RBP_SAME;
  for (unsigned d = 2; d < RBP_AT_FP; d++)
    if (in_stack(o->cfa - 8 * d) &&
        word_at(o->cfa - 8 * d) == o->caller_rbp)
      return d;
  return rbp_at_fp(o) ? RBP_AT_FP : RBP_UNKNOWN;
}

/* The FP rule's k that finds this frame's CFA from its rbp, or 0. */
static intptr_t fp_rule_of(const struct observed *o)
{
  if (o->cfa == o->rbp + 16)
    return 16;
  for (uintptr_t c = 8; c <= 128; c += 8)
    if (in_stack(o->rbp - c) && word_at(o->rbp - c) == o->cfa)
      return FP_DEREF + (intptr_t)c;
  return 0;
}

/* Does FP rule k find this frame's CFA? */
static int fp_fits(const struct observed *o, intptr_t k)
{
  if (k < FP_DEREF)
    return o->cfa == o->rbp + (uintptr_t)k;
  uintptr_t at = o->rbp - (uintptr_t)(k - FP_DEREF);
  return in_stack(at) && word_at(at) == o->cfa;
}

static void learn(const struct observed *o)
{
  _Atomic uint64_t *t = atomic_load_explicit(&learned, memory_order_relaxed);
  intptr_t k = (intptr_t)(o->cfa - o->sp);
  if (!t || o->ip >> IP_BITS)
    return; /* not representable: walks through ip use libgcc */
  unsigned d = rbp_save_of(o);
  intptr_t fk = 0;
  uint64_t fresh;
  /* (the FP rule looked for only where the SP rule cannot be: its search
   * reads words below rbp that the program may never have written, which
   * valgrind's memcheck reported in every walk) */
  if (k > 0 && k % 8 == 0 && k <= K_MAX)
    fresh = SLOT(o->ip, k, d, RULE_SP);
  else if ((fk = fp_rule_of(o)) != 0)
    fresh = SLOT(o->ip, fk, d, RULE_FP);
  else
    fresh = SLOT(o->ip, 0, 0, RULE_VARIABLE);
  uint64_t w;
  _Atomic uint64_t *slot = slot_of(t, o->ip, &w);
  if (!slot)
    return; /* crowded: not learned */
  while (!w) {
    if (atomic_compare_exchange_weak(slot, &w, fresh)) {
      atomic_fetch_add_explicit(&rules_gen, 1, memory_order_release);
      return;
    }
    if (w && SLOT_IP(w) != o->ip)
      return; /* another address took the slot: not learned this time */
  }
  /* seen before: keep a rule this frame agrees with */
  unsigned rule = SLOT_RULE(w);
  uint64_t now = w;
  if (rule == RULE_VARIABLE)
    return;
  if (rule == RULE_SP && SLOT_K(w) == 0) { /* END: a walk went further now */
    atomic_store_explicit(slot, SLOT(o->ip, 0, 0, RULE_VARIABLE),
                          memory_order_relaxed);
    atomic_fetch_add_explicit(&rules_gen, 1, memory_order_release);
    return;
  }
  int fits = rule == RULE_SP ? o->cfa == o->sp + (uintptr_t)SLOT_K(w)
                             : fp_fits(o, SLOT_K(w));
  if (!fits) { /* the stack pointer moved (alloca, realignment): by rbp */
    if (!fk)
      fk = fp_rule_of(o);
    now = fk ? SLOT(o->ip, fk, SLOT_D(w), RULE_FP)
             : SLOT(o->ip, 0, 0, RULE_VARIABLE);
  }
  unsigned had = SLOT_D(now);
  if (SLOT_RULE(now) != RULE_VARIABLE && had != d && had != RBP_UNKNOWN) {
    /* a save slot relative to the CFA moves with realignment: where rbp
     * points does not */
    unsigned nd = rbp_at_fp(o) ? RBP_AT_FP : RBP_UNKNOWN;
    now = (now & ~(15ull << 58)) | ((uint64_t)nd << 58);
  }
  if (now != w) {
    atomic_store_explicit(slot, now, memory_order_relaxed);
    atomic_fetch_add_explicit(&rules_gen, 1, memory_order_release);
  }
}

struct walk {
  uint64_t *frames;
  int n, max;
  struct observed prev; /* the frame before, ip 0 at the start */
  int cut;              /* stopped before the end of the stack */
  int npy;              /* pystop's spans where it stops, or 0 */
};

/* The outermost frame of a walk that went to the end: END. */
static void learn_end(uintptr_t ip)
{
  _Atomic uint64_t *t = atomic_load_explicit(&learned, memory_order_relaxed);
  uint64_t w = 0; /* set where slot is (for clang's warning) */
  _Atomic uint64_t *slot = t && !(ip >> IP_BITS) ? slot_of(t, ip, &w) : NULL;
  if (slot && !w && atomic_compare_exchange_strong(slot, &w, SLOT(ip, 0, 0, RULE_SP)))
    atomic_fetch_add_explicit(&rules_gen, 1, memory_order_release);
}

/* libgcc hands each frame's IP with the CFA of the frame it called, which is
 * this frame's stack pointer at the call, and the registers as they were
 * in this frame: what the previous frame's rules are learned from. */
static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
  struct walk *w = arg;
  uintptr_t ip = cl_unwind.get_ip(ctx), sp = cl_unwind.get_cfa(ctx);
#if defined(__x86_64__)
  uintptr_t rbp = cl_unwind.get_gr(ctx, 6);
#else
  uintptr_t rbp = 0;
#endif
  if (!ip)
    return _URC_END_OF_STACK;
  int first = !w->prev.ip; /* cl_stack_capture itself */
#if defined(__x86_64__)
  if (!first) {
    w->prev.cfa = sp;
    w->prev.caller_rbp = rbp;
    learn(&w->prev);
  }
#endif
  w->prev = (struct observed){ip, sp, rbp, 0, 0};
  if (first || cl_span_has(&self, 1, ip) ||
      cl_span_has(skip, nskip, ip))
    return _URC_NO_REASON;
  if (cl_span_has(stop, nstop, ip) || cl_span_has(pystop, w->npy, ip)) {
    w->cut = 1;
    return _URC_END_OF_STACK;
  }
  w->frames[w->n++] = ip;
  w->cut = w->n == w->max;
  return w->cut ? _URC_END_OF_STACK : _URC_NO_REASON;
}

/* ---- walks remembered ------------------------------------------------------
 * A program calls CUDA from a few places, each at the same depth from one
 * call to the next (a layer's launches, every step), and the outer part of
 * its stack (its main loop, the Python frames above a layer) is the same
 * from one call to the next.  A fast walk depends only on each frame's
 * state (ip, sp, rbp and whether rbp is known), the rules of the table,
 * the words it reads from the stack, the stack's bounds and the spans: a
 * thread remembers its complete fast walks, and a walk whose state, where
 * it starts or at a later frame, is that of a walk remembered (rbp
 * compared only where a later frame uses it) takes the rest from it once
 * each word that walk read there and after still holds what it held, in
 * the same generation of rules.  The frames are then those a walk would
 * have found, at one comparison a word read instead of a rule's lookup and
 * checks a frame.
 * Where a walk starts, every walk remembered that starts in its state is
 * a candidate (calls from different sites at one depth start alike and
 * differ in a return address above): the words of one are compared in the
 * order it read them, and at the first that differs, the walk goes on
 * with a candidate that read the same words before it (what two walks
 * read alike from their start is kept) and holds this one.  Further up,
 * a walk is matched against the last walk remembered or taken, frame by
 * frame; one that meets it there is remembered whole (its own frames,
 * then that walk's, up to where its limit ends it), so that the next call
 * from its site finds it where it starts.  A thread keeps MEMOS walks; a
 * walk kept replaces the one of its own hash (of its start and frames),
 * or none, or one of other rules, or one at random but the last walk's:
 * a program that cycles through more stacks than that still finds some of
 * them where least recently used would replace each before its next use.
 * 64 walks: a resnet18 training step's main thread cycles through more
 * than 32 stacks (on an H100, frames walked by rules a walk: 10.7 with
 * 16 walks kept, 5.1 with 32, 0.2 with 64; bench/README.md).  ~350 KB of
 * address space a thread that calls CUDA, allocated at its first walk
 * (a walk remembered: 5.4 KB; glibc's calloc maps a block this large
 * from the kernel unless the program's frees raised its threshold, and
 * then a walk's pages become resident once it is kept); -DCL_MEMO_BITS
 * sets another count. */
#define MEMO_FRAMES 64
#define MEMO_READS (3 * MEMO_FRAMES) /* at most 3 words a frame */
#ifndef CL_MEMO_BITS
#define CL_MEMO_BITS 6
#endif
#define MEMO_BITS CL_MEMO_BITS
#define MEMOS (1 << MEMO_BITS)
typedef uint64_t memo_set; /* a bit a slot */
_Static_assert(CL_MAX_FRAMES <= CL_STACK_DEPTH, "a depth fits LIM's bits");
_Static_assert(MEMOS <= 64 && MEMOS + 1 <= 255 && MEMO_READS < 256,
               "a bit of a memo_set a slot; slots and reads counted in a byte");
struct memo_frame {
  uintptr_t ip, sp, rbp;
  uint8_t rbp_known;
  uint8_t uses_rbp;       /* the walk from here reads rbp before setting it */
  uint8_t out_before;     /* frames emitted before this one */
  uint8_t first_read;     /* its first word in addr[], val[] */
  uint8_t rbp_read;       /* (while written) the word it set rbp from, + 1 */
};
struct memo {
  unsigned gen;           /* rules_gen of the walk */
  int max;                /* its LIM: the depth and flags it was walked for */
  int n;                  /* frames in f, the last one where the walk ended */
  int natural;            /* it ended at its end, not at max frames */
  int nreads, nout;
  struct memo_frame f[MEMO_FRAMES];
  uintptr_t addr[MEMO_READS], val[MEMO_READS]; /* the words read, in order */
  uint64_t out[CL_MAX_FRAMES];                 /* the frames it found */
};
struct memos {
  struct memo m[MEMOS + 1]; /* those kept, and the one being written */
  uintptr_t sp0[MEMOS];     /* each slot's walk's first sp (0: none) */
  unsigned key[MEMOS];      /* its hash (0: none) */
  unsigned kept;            /* walks kept: where a slot is chosen at random */
  uint8_t at[MEMOS];        /* each slot's walk in m */
  uint8_t spare;            /* the one being written */
  uint8_t last;             /* the slot of the last walk kept or taken */
  /* how many words two slots' walks read alike from their start */
  uint8_t alike[MEMOS][MEMOS];
  int busy;               /* a walk is using them (a walk that interrupts
                           * it, from a handler, does without) */
  unsigned long steps;    /* frames walked by rules, not taken (tests) */
};
static __thread struct memos *memos;

unsigned long cl_stack_rule_steps(void) { return memos ? memos->steps : 0; }

static void memos_init(struct memos *ms)
{
  for (int s = 0; s < MEMOS; s++)
    ms->at[s] = (uint8_t)s;
  ms->spare = MEMOS;
  ms->last = 0; /* (empty: its n is 0) */
}

/* Do the words M's walk read from frame J on still hold what they held? */
static int memo_holds(const struct memo *m, int j)
{
  for (int r = m->f[j].first_read; r < m->nreads; r++)
    if (word_at(m->addr[r]) != m->val[r])
      return 0;
  return 1;
}

/* Does slot S's walk start at (ip, sp, rbp) under rules GEN, LIM (MAX here)? */
static inline int memo_starts(const struct memos *ms, int s, unsigned gen,
                              int max, uintptr_t ip, uintptr_t sp,
                              uintptr_t rbp)
{
  const struct memo *m = &ms->m[ms->at[s]];
  return ms->sp0[s] == sp && m->n && m->gen == gen && m->max == max &&
         m->f[0].ip == ip && (!m->f[0].uses_rbp || m->f[0].rbp == rbp);
}

/* The slots whose walks start at (ip, sp, rbp) under GEN, MAX: a bit each */
static memo_set memo_starting(const struct memos *ms, unsigned gen, int max,
                              uintptr_t ip, uintptr_t sp, uintptr_t rbp)
{
  memo_set cand = 0;
  for (int s = 0; s < MEMOS; s++)
    if (memo_starts(ms, s, gen, max, ip, sp, rbp))
      cand |= (memo_set)1 << s;
  return cand;
}

/* The slot of the walk remembered that a walk starting at (ip, sp, rbp)
 * under rules GEN with limit MAX would repeat (every word it read still
 * holds); -1 when none.  The last walk is tried first, the others that
 * start there once one of its words differs. */
static int memo_find(const struct memos *ms, unsigned gen, int max,
                     uintptr_t ip, uintptr_t sp, uintptr_t rbp)
{
  int c = ms->last, looked = 0;
  memo_set cand = 0; /* the candidates, once looked for */
  if (!memo_starts(ms, c, gen, max, ip, sp, rbp)) {
    cand = memo_starting(ms, gen, max, ip, sp, rbp);
    looked = 1;
    if (!cand)
      return -1;
    c = __builtin_ctzll(cand);
  }
  const struct memo *m = &ms->m[ms->at[c]];
  /* every word before r of c's walk holds */
  for (int r = 0; r < m->nreads;) {
    if (word_at(m->addr[r]) == m->val[r]) {
      r++;
      continue;
    }
    if (!looked)
      cand = memo_starting(ms, gen, max, ip, sp, rbp), looked = 1;
    cand &= ~((memo_set)1 << c);
    int next = -1;
    for (memo_set rest = cand; rest; rest &= rest - 1) {
      int s = __builtin_ctzll(rest);
      const struct memo *o = &ms->m[ms->at[s]];
      if (ms->alike[c][s] < r)
        continue; /* (it may hold: its words are not c's) */
      if (r == o->nreads || word_at(o->addr[r]) == o->val[r]) {
        next = s;
        break;
      }
      cand &= ~((memo_set)1 << s); /* its word r differs */
    }
    if (next < 0)
      return -1;
    c = next;
    m = &ms->m[ms->at[c]];
    if (r < m->nreads)
      r++;
  }
  return c;
}

/* The next frame of the walk REC records, at ip, sp, rbp after OUT frames
 * and NREADS words read; NULL when the walk is too deep to remember. */
static inline struct memo_frame *memo_push(struct memo *rec, int *k,
                                           uintptr_t ip, uintptr_t sp,
                                           uintptr_t rbp, int rbp_known,
                                           int out, int nreads)
{
  if (*k >= MEMO_FRAMES)
    return NULL;
  struct memo_frame *f = &rec->f[(*k)++];
  *f = (struct memo_frame){ip, sp, rbp, (uint8_t)rbp_known, 0, (uint8_t)out,
                           (uint8_t)nreads, 0};
  return f;
}

/* Keep the walk being written (the spare): K frames recorded, NREADS
 * words, FRAMES[0..NOUT) found; when OLD took over at its frame J (after
 * N frames found), the rest is OLD's from there, to where the walk found
 * NOUT frames. */
static void memo_keep(struct memos *ms, int k, int nreads,
                      const uint64_t *frames, int n, int nout, int natural,
                      unsigned gen, int max, const struct memo *old, int j)
{
  struct memo *rec = &ms->m[ms->spare];
  int later = 0; /* whether the walk after frame i reads the rbp it gets */
  int end = 0, end_read = 0; /* OLD's frames and words taken: up to these */
  if (old) {
    const struct memo_frame *o = &old->f[j];
    end = old->n, end_read = old->nreads;
    natural = old->natural;
    if (nout - n < old->nout - o->out_before) {
      /* cut short at max: it ends at the frame that found its last frame,
       * before that frame's words (its rbp compared, and words kept,
       * where OLD's walk used them further up: more than it needs) */
      for (end = j; end < old->n - 1; end++)
        if (old->f[end + 1].out_before - o->out_before == nout - n)
          break;
      end_read = old->f[end++].first_read;
      natural = 0;
    }
    if (k + end - j > MEMO_FRAMES ||
        nreads + end_read - o->first_read > MEMO_READS)
      return; /* too deep to remember */
    later = o->uses_rbp;
  }
  /* whether each frame's walk reads the rbp it came in with: its own
   * rule, or a later frame's while no frame between sets it */
  for (int i = k - 1; i >= 0; i--) {
    struct memo_frame *x = &rec->f[i];
    /* a word rbp was set from that no later frame uses is not kept:
     * (a register a function saved, not a frame pointer: it changes
     * from call to call and changes nothing in the walk) */
    if (x->rbp_read && !later)
      rec->addr[x->rbp_read - 1] = 0;
    later = x->uses_rbp == 1 || (x->uses_rbp == 0 && later);
    x->uses_rbp = (uint8_t)later;
  }
  int kept = 0;
  for (int i = 0, r = 0; i < k; i++) {
    int last = i + 1 < k ? rec->f[i + 1].first_read : nreads;
    rec->f[i].first_read = (uint8_t)kept;
    for (; r < last; r++)
      if (rec->addr[r])
        rec->addr[kept] = rec->addr[r], rec->val[kept++] = rec->val[r];
  }
  if (old) {
    const struct memo_frame *o = &old->f[j];
    for (int i = j; i < end; i++) {
      struct memo_frame x = old->f[i];
      x.out_before = (uint8_t)(x.out_before - o->out_before + n);
      x.first_read = (uint8_t)(x.first_read - o->first_read + kept);
      rec->f[k++] = x;
    }
    for (int r = o->first_read; r < end_read; r++)
      rec->addr[kept] = old->addr[r], rec->val[kept++] = old->val[r];
  }
  rec->gen = gen, rec->max = max, rec->n = k, rec->natural = natural;
  rec->nreads = kept;
  rec->nout = nout;
  memcpy(rec->out, frames, (size_t)nout * sizeof *frames);
  /* its slot */
  uint64_t h = rec->f[0].sp ^ rec->f[0].ip * 0x100000001b3ull;
  for (int i = 0; i < nout; i++)
    h = (h ^ frames[i]) * 0x100000001b3ull;
  unsigned key = cl_hash_bits(h, 32) | 1;
  int s = -1;
  for (int w = 0; w < MEMOS && s < 0; w++)
    if (ms->key[w] == key)
      s = w;
  for (int w = 0; w < MEMOS && s < 0; w++)
    if (ms->m[ms->at[w]].gen != gen) /* none, or of other rules: no use */
      s = w;
  if (s < 0) { /* (a fixed sequence: the same walks, the same slots) */
    s = (int)cl_hash_bits(++ms->kept, MEMO_BITS);
    if (s == ms->last)
      s = (s + 1) % MEMOS;
  }
  int mine = ms->spare;
  ms->spare = ms->at[s];
  ms->at[s] = (uint8_t)mine;
  ms->sp0[s] = rec->f[0].sp;
  ms->key[s] = key;
  ms->last = (uint8_t)s;
  /* what it read alike with each walk that starts where it does (others
   * are never candidates with it: 0); from one such walk c's, the others'
   * follow, but where they and c read alike as far as it and c do */
  int c = -1, q = 0;
  for (int w = 0; w < MEMOS; w++) {
    const struct memo *o = &ms->m[ms->at[w]];
    int r = 0;
    if (w != s && ms->sp0[w] == rec->f[0].sp && o->n &&
        o->f[0].ip == rec->f[0].ip) {
      if (c >= 0 && ms->alike[c][w] != q)
        r = ms->alike[c][w] < q ? ms->alike[c][w] : q;
      else {
        int most = o->nreads < kept ? o->nreads : kept;
        r = c >= 0 ? q : 0;
        while (r < most && o->addr[r] == rec->addr[r] &&
               o->val[r] == rec->val[r])
          r++;
      }
      if (c < 0)
        c = w, q = r;
    }
    ms->alike[s][w] = ms->alike[w][s] = (uint8_t)r;
  }
  ms->alike[s][s] = (uint8_t)kept;
}

/* Follow learned rules from (ip, sp, rbp), with the thread's memos MS
 * (or none), for LIM (cl_stack_capture's: a depth and flags, which a memo
 * is kept for); -1 when a rule is missing or cannot be followed.  What every
 * frame reads (the stack's bounds, the
 * spans) is held in locals: the frames written could otherwise be the
 * same memory, and each would be read again for each frame. */
static int walk_rules(struct memos *ms, _Atomic uint64_t *t, uintptr_t ip,
                      uintptr_t sp, uintptr_t rbp, uint64_t *frames, int lim)
{
  const uintptr_t lo = stack_lo, hi = stack_hi;
  const int max = lim & CL_STACK_DEPTH;
  const int npy = lim & CL_STACK_TO_PYTHON
                      ? atomic_load_explicit(&npystop, memory_order_acquire)
                      : 0;
#define IN_STACK(a) ((a) >= lo && (a) < hi && hi - (a) >= 8)
  unsigned gen = atomic_load_explicit(&rules_gen, memory_order_acquire);
  /* (the frames found are kept: CL_MAX_FRAMES at most) */
  if (max > CL_MAX_FRAMES)
    ms = NULL;
  const struct memo *old = NULL;
  if (ms) {
    int s = memo_find(ms, gen, lim, ip, sp, rbp);
    if (s >= 0) {
      old = &ms->m[ms->at[s]];
      memcpy(frames, old->out, (size_t)old->nout * sizeof *frames);
      ms->last = (uint8_t)s;
      CL_PHASE_ADD(CL_PH_STACK_MEMO, 1);
      return old->nout;
    }
    old = &ms->m[ms->at[ms->last]]; /* met further up, if at all */
    if (old->gen != gen || old->max != lim || !old->n)
      old = NULL;
  }
  struct memo *rec = ms ? &ms->m[ms->spare] : NULL;
  int j = 0; /* old's first frame not below sp */
  int n = 0, rbp_known = 1, k = 0, natural = 1, nreads = 0, walked = 0;
  struct memo_frame *f = NULL;
  while (ip && n < max) {
    if (old && walked) { /* (where the walk starts, old was a candidate) */
      while (j < old->n && old->f[j].sp < sp)
        j++;
      const struct memo_frame *o = &old->f[j];
      if (j < old->n && o->sp == sp && o->ip == ip &&
          o->rbp_known == rbp_known && (!o->uses_rbp || o->rbp == rbp)) {
        if ((old->natural || n >= o->out_before) && memo_holds(old, j)) {
          int more = old->nout - o->out_before;
          if (more > max - n)
            more = max - n;
          memcpy(frames + n, old->out + o->out_before,
                 (size_t)more * sizeof *frames);
          CL_PHASE_ADD(CL_PH_STACK_MEMO, 1);
          if (rec)
            memo_keep(ms, k, nreads, frames, n, n + more, natural, gen, lim,
                      old, j);
          return n + more;
        }
        old = NULL; /* changed: walk on */
      }
    }
    walked++;
    CL_PHASE_ADD(CL_PH_STACK_STEPS, 1);
    if (ms)
      ms->steps++;
    f = rec ? memo_push(rec, &k, ip, sp, rbp, rbp_known, n, nreads) : NULL;
    if (!f)
      rec = NULL; /* too deep to remember */
#define READ(var, a)                                                           \
  do {                                                                         \
    uintptr_t a_ = (a);                                                        \
    var = word_at(a_);                                                         \
    if (f) {                                                                   \
      rec->addr[nreads] = a_;                                                  \
      rec->val[nreads++] = var;                                                \
    }                                                                          \
  } while (0)
    if (cl_span_has(stop, nstop, ip) || cl_span_has(pystop, npy, ip))
      goto end;
    if (!(cl_span_has(&self, 1, ip) || cl_span_has(skip, nskip, ip)))
      frames[n++] = ip;
    if (n == max) {
      natural = 0;
      goto end;
    }
    uint64_t w;
    if (!slot_of(t, ip, &w) || SLOT_IP(w) != ip)
      return -1;
    uintptr_t cfa;
    switch (SLOT_RULE(w)) {
    case RULE_SP:
      if (SLOT_K(w) == 0)
        goto end; /* END */
      cfa = sp + (uintptr_t)SLOT_K(w);
      break;
    case RULE_FP:
      if (!rbp_known)
        return -1;
      if (f)
        f->uses_rbp = 1;
      if (SLOT_K(w) < FP_DEREF) {
        cfa = rbp + (uintptr_t)SLOT_K(w);
      } else {
        uintptr_t at = rbp - (uintptr_t)(SLOT_K(w) - FP_DEREF);
        if (!IN_STACK(at))
          return -1;
        READ(cfa, at);
      }
      break;
    default:
      return -1;
    }
    if (!IN_STACK(cfa - 8) || cfa <= sp)
      return -1;
    unsigned d = SLOT_D(w);
    if (d == RBP_UNKNOWN) {
      rbp_known = 0;
      if (f && !f->uses_rbp)
        f->uses_rbp = 2; /* what came in is not used after */
    } else if (d == RBP_AT_FP) {
      if (!rbp_known || !IN_STACK(rbp))
        return -1;
      if (f)
        f->uses_rbp = 1, f->rbp_read = (uint8_t)(nreads + 1);
      READ(rbp, rbp);
    } else if (d != RBP_SAME) {
      if (!IN_STACK(cfa - 8 * d))
        return -1;
      if (f)
        f->rbp_read = (uint8_t)(nreads + 1);
      READ(rbp, cfa - 8 * d);
      if (f && !f->uses_rbp)
        f->uses_rbp = 2;
    }
    READ(ip, cfa - 8);
    sp = cfa;
#undef READ
  }
  /* ip 0: the end */
  if (rec && !memo_push(rec, &k, ip, sp, rbp, rbp_known, n, nreads))
    rec = NULL;
end:
#undef IN_STACK
  if (rec)
    memo_keep(ms, k, nreads, frames, n, n, natural, gen, lim, NULL, 0);
  return n;
}

static int fast_walk(_Atomic uint64_t *t, uintptr_t ip, uintptr_t sp,
                     uintptr_t rbp, uint64_t *frames, int lim)
{
  struct memos *ms = memos;
  if (!ms && (lim & CL_STACK_DEPTH) <= CL_MAX_FRAMES &&
      (ms = cl_thread_calloc((void **)&memos, sizeof *memos)))
    memos_init(ms);
  if (ms && ms->busy)
    ms = NULL;
  /* busy is read by a handler that interrupts this thread: the compiler
   * keeps the memos' reads and writes between its two stores (once
   * walk_rules is inlined, nothing else stops it moving them across) */
  if (ms) {
    ms->busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
  }
  int n = walk_rules(ms, t, ip, sp, rbp, frames, lim);
  if (ms) {
    atomic_signal_fence(memory_order_seq_cst);
    ms->busy = 0;
  }
  return n;
}

static void find_stack_bounds(void)
{
  pthread_attr_t attr;
  void *addr;
  size_t size;
  stack_hi = 1; /* tried */
  if (pthread_getattr_np(pthread_self(), &attr))
    return;
  if (!pthread_attr_getstack(&attr, &addr, &size)) {
    stack_lo = (uintptr_t)addr;
    stack_hi = (uintptr_t)addr + size;
  }
  pthread_attr_destroy(&attr);
}

__attribute__((noinline)) int cl_stack_capture(uint64_t *frames, int lim)
{
  const int max = lim & CL_STACK_DEPTH;
  if (max <= 0)
    return 0;
  if (!stack_hi)
    find_stack_bounds();
#if defined(__x86_64__)
  _Atomic uint64_t *t = learned_table();
  if (t && stack_lo && walks_left) {
    walks_left--;
    /* this frame keeps a frame pointer (we ask for its address): the
     * caller's rbp is saved where it points, the CFA is 16 above */
    const uintptr_t *fp = __builtin_frame_address(0);
    int n = fast_walk(t, (uintptr_t)__builtin_return_address(0),
                      (uintptr_t)fp + 16, fp[0], frames, lim);
    if (n >= 0)
      return n;
    CL_PHASE_ADD(CL_PH_STACK_FAST_MISS, 1);
  }
#endif
  slow_walks++;
  CL_PHASE_BEGIN(t0);
#if defined(__x86_64__)
  /* a check (no walk left before it): rules_gen moves when a rule is
   * learned or changed, by this walk or another thread's */
  int check = t && stack_lo && !walks_left;
  unsigned gen = atomic_load_explicit(&rules_gen, memory_order_acquire);
#endif
  struct walk w = {frames, 0, max, {0, 0, 0, 0, 0}, 0,
                   lim & CL_STACK_TO_PYTHON
                       ? atomic_load_explicit(&npystop, memory_order_acquire)
                       : 0};
  __typeof__(cl_unwind.backtrace) backtrace = cl_unwind_backtrace();
  if (backtrace)
    backtrace(step, &w);
#if defined(__x86_64__)
  if (!w.cut && w.prev.ip)
    learn_end(w.prev.ip);
  if (check) {
    int agreed = check_interval &&
                 atomic_load_explicit(&rules_gen, memory_order_acquire) == gen;
    check_interval = !agreed ? CHECK_FIRST
                     : check_interval < CHECK_MAX ? check_interval * 2
                                                  : CHECK_MAX;
    walks_left = check_interval - 1;
  }
#endif
  CL_PHASE_END(CL_PH_STACK_SLOW, t0);
  return w.n;
}

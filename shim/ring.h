/* ring.h - the per-thread rings (ring.c) that carry records from the
 * program's threads to the writer, and which process they belong to. */
#ifndef CUDALENS_SHIM_RING_H
#define CUDALENS_SHIM_RING_H

#include "shim.h"

/* Single producer (the owning thread), single consumer (the writer). */
struct cl_ring {
  struct cl_ring *next;          /* registry list, under the registry lock */
  _Atomic uint64_t head;         /* next slot the writer reads */
  _Atomic uint64_t tail;         /* next slot the owner fills */
  /* records lost (CUDALENS_OVERFLOW=drop): [0] calls and the rest,
   * [1] GPU activity records */
  _Atomic uint64_t dropped[2];
  _Atomic int dead;              /* owner thread exited */
  /* the map generation a record being filled was scanned in (kparams.c:
   * the writer must resolve its words as of then); UINT64_MAX: none */
  _Atomic uint64_t held;
  uint32_t tid;
  unsigned capacity;             /* power of two */
  struct cl_record slots[];
};
/* Reserve the next slot of this thread's ring for a record of TYPE, or NULL
 * (record dropped and counted).  Fill it, then cl_ring_commit(). */
struct cl_record *cl_ring_reserve(enum cl_rec_type type) CL_HIDDEN;
void cl_ring_commit(void) CL_HIDDEN;
/* The N argument words at V of the record cl_ring_reserve gave (a launch
 * or a graph's kernel node) past its first CL_MAX_KARGS, into CL_REC_KARGS
 * records in the slots after it, as many as the ring has room for (waited
 * for as cl_ring_reserve waits; the record says it kept fewer words, and
 * no record is counted lost): how many slots, and in *KEPT how many
 * words.  The record and those K slots are committed at once:
 * cl_ring_commit_n(1 + K). */
unsigned cl_ring_put_kargs(const struct cl_karg *v, unsigned n,
                           unsigned *kept) CL_HIDDEN;
void cl_ring_commit_n(unsigned n) CL_HIDDEN;
/* The calling thread is about to fill a record that the writer must read
 * as of allocation-map generation GEN (a launch's arguments, left for the
 * writer to resolve: kparams.c): until cl_ring_release(), its ring's held
 * is at most GEN, and the writer keeps what that generation needs.  0 when
 * the thread has no ring yet (the caller then does without). */
int cl_ring_hold(uint64_t gen) CL_HIDDEN;
/* after the held record's commit (or its loss) */
void cl_ring_release(void) CL_HIDDEN;
/* Hand every ring to fn (under the registry lock) after freeing the drained
 * rings of exited threads; their drop counts are kept for
 * cl_ring_take_orphan_drops(). */
void cl_ring_foreach(void (*fn)(struct cl_ring *, void *), void *arg) CL_HIDDEN;
void cl_ring_take_orphan_drops(uint64_t lost[2]) CL_HIDDEN;
/* records lost because their thread's ring could not be allocated */
uint64_t cl_ring_take_unbuffered(void) CL_HIDDEN;
/* How often the program's threads found their ring full and waited for the
 * writer, and for how long in all (ns); since the start or the fork. */
void cl_ring_waits(uint64_t *count, uint64_t *ns) CL_HIDDEN;
/* The calling thread's id: read once per thread (and again in a fork's
 * child), then kept in cl_tid (inline: asked on every recorded call). */
extern __thread uint32_t cl_tid CL_HIDDEN;
uint32_t cl_gettid_first(void) CL_HIDDEN;
static inline uint32_t cl_gettid(void)
{
  uint32_t tid = cl_tid;
  return tid ? tid : cl_gettid_first();
}

/* This process is the one the shim started in (or a fork() of it): marked
 * at the start and by fork()'s child handler */
void cl_ring_process_start(void) CL_HIDDEN;
/* 1 in a process the shim did not see start: a raw clone/clone3 child,
 * which records nothing (say: and says so, once) */
int cl_ring_unseen_process(int say) CL_HIDDEN;
void cl_ring_atfork_prepare(void) CL_HIDDEN;
void cl_ring_atfork_parent(void) CL_HIDDEN;
void cl_ring_atfork_child(void) CL_HIDDEN;

#endif

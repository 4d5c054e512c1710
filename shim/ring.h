/* ring.h - the per-thread rings (ring.c) that carry records from the
 * program's threads to the writer, and which process they belong to. */
#ifndef CUDALENS_SHIM_RING_H
#define CUDALENS_SHIM_RING_H

#include "shim.h"

/* Single producer (the owning thread), single consumer (the writer).
 * Records lie one after the other, each taking only its cl_record_bytes (a
 * kernel launch with 20 frames ~430 bytes, not a whole struct cl_record's
 * 720): a call writes, and the writer reads, only the cache lines it uses.
 * A ring holds up to CAPACITY records, as many as it has bytes for whole
 * ones; a record that starts near the end runs on into the slack past it
 * (a whole struct cl_record), so none is ever split.  HEAD and TAIL are a
 * record's place: the records before it (mod 2^32) in the high half, its
 * offset in BYTES in the low one. */
struct cl_ring {
  struct cl_ring *next;          /* registry list, under the registry lock */
  _Atomic uint64_t head;         /* the next record the writer reads */
  _Atomic uint64_t tail;         /* the next record the owner fills */
  /* records lost (CUDALENS_OVERFLOW=drop): [0] calls and the rest,
   * [1] GPU activity records */
  _Atomic uint64_t dropped[2];
  _Atomic int dead;              /* owner thread exited */
  uint32_t tid;
  unsigned capacity;             /* records: a power of two */
  unsigned size;                 /* bytes: capacity whole records */
  _Alignas(16) unsigned char bytes[]; /* size + sizeof(struct cl_record) */
};
/* The record at place AT, the place after it (N bytes), the records between
 * two places. */
static inline struct cl_record *cl_ring_at(struct cl_ring *r, uint64_t at)
{
  return (struct cl_record *)(r->bytes + (uint32_t)at);
}
static inline uint64_t cl_ring_advance(const struct cl_ring *r, uint64_t at,
                                       size_t n)
{
  uint32_t off = (uint32_t)at + (uint32_t)n;
  if (off >= r->size)
    off -= r->size;
  return (((at >> 32) + 1) << 32) | off;
}
static inline uint32_t cl_ring_records(uint64_t head, uint64_t tail)
{
  return (uint32_t)((tail >> 32) - (head >> 32));
}
/* Reserve room for a record of TYPE (a whole struct cl_record) at the end of
 * this thread's ring, or NULL (record dropped and counted).  Fill it, then
 * cl_ring_commit(), which takes its cl_record_bytes. */
struct cl_record *cl_ring_reserve(enum cl_rec_type type) CL_HIDDEN;
void cl_ring_commit(void) CL_HIDDEN;
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

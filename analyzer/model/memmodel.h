/* memmodel.h - the allocations live at a point of the recording (memory
 * table), replayed in seq order, to learn what kind of memory an address
 * is (pageable, pinned, device, ...) when a call touches it; and who may
 * reach it: the ranges reserved for mappings (cuMemAddressReserve), the
 * pool or physical allocation each allocation belongs to (alloc_handles),
 * and the access rights of mappings and pools (mem_access), since schema 4. */
#ifndef CL_REPORT_MEMMODEL_H
#define CL_REPORT_MEMMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/db.h"

struct alloc {
  uint64_t address, size;
  int kind;        /* enum cl_memkind */
  int64_t device;  /* -1 when NULL */
  int64_t seq;     /* of the allocating call */
  uint64_t handle; /* its pool (device-async) or physical allocation
                    * (mapped); 0: unknown */
  uint64_t access; /* mapped: bit d when cuMemSetAccess let device d < 64
                    * read it */
};

struct memrow {
  int64_t seq;
  int is_free;
  struct alloc a;
};

/* a mem_access row: device DEVICE may read (flags & 1) the pool HANDLE
 * (is_pool) or the mappings in [address, address + size) */
struct accrow {
  int64_t seq;
  bool is_pool;
  uint64_t address, size;
  int64_t device;
  int64_t flags;
};

/* a pool's access rights: bit d when device d < 64 may read its memory */
struct poolacc {
  uint64_t handle, access;
};

struct memmodel {
  struct memrow *rows; /* all of the memory table, by seq */
  size_t nrows, next;  /* rows[next..] are not applied yet */
  struct accrow *acc;  /* all of mem_access, by seq */
  size_t nacc, nextacc;
  struct alloc *live;  /* sorted by address: memory, not reservations */
  size_t nlive, caplive;
  struct alloc *res;   /* reserved ranges, sorted by address */
  size_t nres, capres;
  struct poolacc *pools;
  size_t npools, cappools;
};

void memmodel_load(struct memmodel *m, struct cl_db *d);
void memmodel_free(struct memmodel *m);
/* apply the allocations and frees recorded up to and including SEQ (calls
 * must be visited in increasing seq) */
void memmodel_advance(struct memmodel *m, int64_t seq);
/* the live allocation containing ADDR, or NULL */
const struct alloc *memmodel_find(const struct memmodel *m, uint64_t addr);
/* the reserved range (cuMemAddressReserve) containing ADDR, or NULL */
const struct alloc *memmodel_reservation(const struct memmodel *m,
                                         uint64_t addr);
/* Whether device DEV may reach allocation A by its own access rights:
 * 1 yes, 0 no, -1 when they do not decide (memory that peer access
 * governs, or rights unknown).  Mapped memory: the device of its physical
 * allocation, or one cuMemSetAccess named; pool memory: the pool's device,
 * or one its access descriptors name. */
int memmodel_can_access(const struct memmodel *m, const struct alloc *a,
                        int64_t dev);

/* The memory kind of host address ADDR as a copy or memset sees it, the one
 * rule every analysis uses: ACT_KIND (from the copy's activity record, the
 * GPU's view; negative or CL_MEMKIND_UNKNOWN when there is none), else the
 * recorded allocation or registration holding ADDR, else pageable (host
 * memory CUDA neither allocated nor registered).  CL_MEMKIND_UNKNOWN for a
 * NULL address. */
int memmodel_host_kind(const struct memmodel *m, int act_kind, uint64_t addr);

struct call_act;
/* the kind of the host side of a copy of direction DIR (cl_dir): the
 * source of host-to-device and host-to-host copies, the destination of
 * device-to-host ones; CL_MEMKIND_COUNT when the copy has no host side */
int memmodel_copy_host_kind(const struct memmodel *m, int dir,
                            const struct call_act *ca, uint64_t src,
                            uint64_t dst);

/* true for memory kinds that live on one device */
bool memkind_on_device(int kind);

/* Direction of a copy: the one requested, else the GPU's, else from the
 * memory kinds of its addresses (enum cl_dir). */
struct call_act;
int copy_direction(int requested, const struct call_act *ca,
                   const struct memmodel *mm, uint64_t src, uint64_t dst);

#endif

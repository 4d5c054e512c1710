/* host_accesses.h - the host's accesses that the shim's page protection
 * caught (host_accesses), each with the device work in flight on the
 * memory (copy_seq: a copy's, memset's or kernel's call) and the
 * allocation it lies in, read in seq order through a cursor:
 *
 *   struct db_cursor *c = host_accesses_open(db);
 *   struct host_access a;
 *   while (host_accesses_next(c, &a)) ...
 *   db_cursor_close(c);
 *
 * The strings of A are valid until the next call on the cursor. */
#ifndef CL_REPORT_HOST_ACCESSES_H
#define CL_REPORT_HOST_ACCESSES_H

#include <stdbool.h>
#include <stdint.h>

#include "model/db.h"

struct host_access {
  int64_t seq;           /* host_accesses.seq */
  const char *kind;      /* "read", "write", "free"...; NULL: none recorded */
  int64_t stack, pystack; /* of the access, -1: none */
  int64_t address;
  /* the device work in flight */
  int64_t copy_seq;
  const char *api;       /* its API as recorded, NULL: unknown call */
  int64_t device;        /* calls.device, -1: none */
  bool has_stream;       /* its stream (a copy's, else a kernel's, else */
  int64_t stream;        /* the call's); none: the default stream */
  bool transfer;         /* a copy or memset (transfers) */
  const char *direction; /* transfers.direction, NULL: none */
  bool is_memset;        /* transfers.op is memset */
  int64_t bytes;         /* transfers.bytes, 0: none */
  bool is_kernel;        /* a kernel launch (kernels) */
  int64_t kname;         /* its name's strings id (names.h), -1: none */
  int64_t param;         /* the first kernel argument into the allocation,
                            -1: none */
  /* the allocation accessed: the latest one holding the address */
  const char *memkind;   /* memory.kind, NULL: none found */
  bool has_mem_size;
  int64_t mem_size;
};

struct db_cursor *host_accesses_open(struct cl_db *d);
bool host_accesses_next(struct db_cursor *c, struct host_access *a);

#endif

/* calls.h - the recording's calls looked up one at a time, for what a
 * finding says of them (its API, stacks, kernel, copy, time), and the facts
 * of all calls as exact as SQLite gives them.  Each lookup is one query of a
 * statement prepared once per connection (db_cached). */
#ifndef CL_REPORT_CALLS_H
#define CL_REPORT_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/db.h"
#include "model/replay.h"

struct call_info {
  int64_t seq;
  const char *api;       /* api.name as recorded; NULL: not in the api table */
  int64_t stack, pystack; /* -1: none */
  int64_t kname;         /* kernels.name (names.h), -1: not a kernel */
  const char *direction; /* transfers.direction, NULL: none */
  int64_t bytes;         /* transfers.bytes, 0: none */
};

/* Call SEQ of an API the recording names; false when there is none.  The
 * strings of OUT are valid until the next lookup on D. */
bool call_info(struct cl_db *d, int64_t seq, struct call_info *out);

/* The first call after seq AFTER, of DEVICE unless ANY_DEVICE (api NULL
 * when the API is not in the api table; kname, direction and bytes not
 * read); false when there is none. */
bool call_first_after(struct cl_db *d, int64_t after, int64_t device,
                      bool any_device, struct call_info *out);

/* How long after the start of the recording (meta start_ns: the shim's
 * load; else the first call) call SEQ was made, in ns; -1 when unknown. */
int64_t call_time_into_run(struct cl_db *d, int64_t seq);

/* The facts of D's calls (replay_calls_facts), from SQL when the calls
 * have a value that is not an integer or NULL (a hand-made recording, whose
 * SQL comparisons only SQLite gives).  Never NULL. */
const struct calls_facts *calls_facts(struct cl_db *d);

/* the distinct devices that D's device-memory allocations (memory.kind
 * device, device-async, managed, array, mapped), transfers (source and
 * destination) and peer-access enables (the peer) name, NULL ones left out
 * (malloc'd, *N of them) */
int64_t *devices_with_memory(struct cl_db *d, size_t *n);

/* per device that has contexts: how many, and the seq of the call that
 * created the first (0: unknown), by device */
struct device_contexts {
  int64_t device, count, created;
};
struct device_contexts *contexts_by_device(struct cl_db *d, size_t *n);

#endif

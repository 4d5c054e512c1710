/* resolver.h - the call-site tests' resolver over an in-memory recording
 * they wrote with SQL: read through the model as the report reads it
 * (model/stacks.c), not validated as db_open validates a file. */
#ifndef CUDALENS_UNIT_RESOLVER_H
#define CUDALENS_UNIT_RESOLVER_H
#include <sqlite3.h>

#include "cudalens/format.h"
#include "model/stacks.h"

/* *D, the model's handle on DB, is closed with db_close (which closes DB) */
static inline struct callsites *resolver(struct cl_db *d, sqlite3 *db)
{
  *d = (struct cl_db){.db = db, .path = ":memory:",
                      .version = CL_SCHEMA_VERSION};
  return stacks_callsites(d);
}
#endif

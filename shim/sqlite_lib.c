/* sqlite_lib.c - libcudalens-sqlite.so: SQLite, linked in statically and
 * kept local, with the schema's tables (common/tables.c), and the one
 * symbol the library exports, the table of the functions the shim's writer
 * calls (sqlite_api.h).  The shim loads it only
 * when a process starts to record (sqlite_load.c), so that processes that
 * never use CUDA do not map and relocate SQLite.  Built a second time with
 * CL_SQLITE_LINKED into libclsqlite.la, for programs that link the shim's
 * pieces and SQLite themselves (the unit tests, bench/writer_rate): there
 * cl_sqlite_load takes this table, with nothing to load. */
#define CL_SQLITE_LIB 1
#include "sqlite_api.h"

CL_EXPORT const struct cl_sqlite_api cl_sqlite_api = {
    .size = sizeof(struct cl_sqlite_api),
#define CL_SQLITE_INIT(f) .f = sqlite3_##f,
    CL_SQLITE_FUNCTIONS(CL_SQLITE_INIT)
#undef CL_SQLITE_INIT
#define CL_SCHEMA_INIT(f) .f = cl_##f,
    CL_SCHEMA_FUNCTIONS(CL_SCHEMA_INIT)
#undef CL_SCHEMA_INIT
    .index_sql = CL_INDEX_SQL,
};

#ifdef CL_SQLITE_LINKED
const struct cl_sqlite_api *cl_sqlite;

int cl_sqlite_load(char *why, size_t n)
{
  (void)why;
  (void)n;
  cl_sqlite = &cl_sqlite_api;
  return 0;
}
#endif

/* sqlite_api.h - the SQLite functions the shim's writer calls, reached
 * through one table (struct cl_sqlite_api) that libcudalens-sqlite.so
 * exports (sqlite_lib.c) and the shim loads when a process starts to record
 * (sqlite_load.c).  SQLite is 2 MB of code and 2,500 relocations that every
 * process the shim is preloaded into would otherwise load, most of which
 * never use CUDA (issue 24, item 10).  The recording's schema as data
 * (common/tables.c: the tables, their columns and the meta keys, 640
 * relocations of their names) lives there too, and the two functions of it
 * the writer uses are in the table.  Included after <sqlite3.h>; in the
 * shim's files the sqlite3_* names below, cl_insert_sql, cl_meta_key,
 * CL_SCHEMA_SQL and CL_INDEX_SQL go through the table. */
#ifndef CUDALENS_SQLITE_API_H
#define CUDALENS_SQLITE_API_H
#include <sqlite3.h>
#include <stddef.h>

#include "cudalens/tables.h"
#include "cudalens/visibility.h"

/* every SQLite function the shim calls, without the sqlite3_ prefix; one
 * not listed here does not link (libclshim has no SQLite of its own) */
#define CL_SQLITE_FUNCTIONS(X)                                                 \
  X(bind_blob) X(bind_int64) X(bind_null) X(bind_text) X(close) X(errmsg)      \
  X(exec) X(finalize) X(free) X(open_v2) X(prepare_v3) X(progress_handler)     \
  X(reset) X(serialize) X(sql) X(step) X(vfs_find)

/* the functions of common/tables.c the writer calls, without the cl_ prefix
 * (and CL_SCHEMA_SQL is cl_schema_sql(); CL_INDEX_SQL is index_sql below) */
#define CL_SCHEMA_FUNCTIONS(X) X(insert_sql) X(meta_key) X(schema_sql)

struct cl_sqlite_api {
  unsigned size; /* sizeof (struct cl_sqlite_api): the two built together */
#define CL_SQLITE_FIELD(f) __typeof__(sqlite3_##f) *f;
  CL_SQLITE_FUNCTIONS(CL_SQLITE_FIELD)
#undef CL_SQLITE_FIELD
#define CL_SCHEMA_FIELD(f) __typeof__(cl_##f) *f;
  CL_SCHEMA_FUNCTIONS(CL_SCHEMA_FIELD)
#undef CL_SCHEMA_FIELD
  const char *index_sql; /* CL_INDEX_SQL */
};

/* the table libcudalens-sqlite.so exports, by this name */
#define CL_SQLITE_TABLE "cl_sqlite_api"

/* the table in use: NULL until cl_sqlite_load() succeeded */
extern const struct cl_sqlite_api *cl_sqlite CL_HIDDEN;
/* loads libcudalens-sqlite.so (once): 0, or -1 with why in WHY */
int cl_sqlite_load(char *why, size_t n) CL_HIDDEN;

/* the shim's calls go through the table (not in sqlite_lib.c, which fills
 * it with SQLite's own functions) */
#ifndef CL_SQLITE_LIB
#define sqlite3_bind_blob (cl_sqlite->bind_blob)
#define sqlite3_bind_int64 (cl_sqlite->bind_int64)
#define sqlite3_bind_null (cl_sqlite->bind_null)
#define sqlite3_bind_text (cl_sqlite->bind_text)
#define sqlite3_close (cl_sqlite->close)
#define sqlite3_errmsg (cl_sqlite->errmsg)
#define sqlite3_exec (cl_sqlite->exec)
#define sqlite3_finalize (cl_sqlite->finalize)
#define sqlite3_free (cl_sqlite->free)
#define sqlite3_open_v2 (cl_sqlite->open_v2)
#define sqlite3_prepare_v3 (cl_sqlite->prepare_v3)
#define sqlite3_progress_handler (cl_sqlite->progress_handler)
#define sqlite3_reset (cl_sqlite->reset)
#define sqlite3_serialize (cl_sqlite->serialize)
#define sqlite3_sql (cl_sqlite->sql)
#define sqlite3_step (cl_sqlite->step)
#define sqlite3_vfs_find (cl_sqlite->vfs_find)
#define cl_insert_sql (cl_sqlite->insert_sql)
#define cl_meta_key (cl_sqlite->meta_key)
#define cl_schema_sql (cl_sqlite->schema_sql)
#define CL_INDEX_SQL (cl_sqlite->index_sql)
#endif
#endif

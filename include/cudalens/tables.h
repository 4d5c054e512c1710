/* tables.h - the tables of a recording (tables.def) as C: which tables,
 * their column indexes and types, the meta keys, and the SQL made of them
 * (common/tables.c).  Shared by the recorder and the analyzer. */
#ifndef CUDALENS_TABLES_H
#define CUDALENS_TABLES_H

#include <stddef.h>

/* the tables: CL_TABLE_<table>, CL_NTABLES */
enum cl_table {
#define CL_TABLE(t, since) CL_TABLE_##t,
#include "cudalens/tables.def"
#undef CL_TABLE
  CL_NTABLES
};

/* per table, its columns' indexes from 0 (CL_COL_<table>_<column>: a
 * SELECT of cl_select_sql's result column, an INSERT's parameter less one)
 * and their number (CL_NCOLS_<table>) */
#define CL_TABLE(t, since) enum {
#define CL_COL(t, c, type, cons) CL_COL_##t##_##c,
#define CL_END(t, tcons, opts) CL_NCOLS_##t };
#include "cudalens/tables.def"
#undef CL_TABLE
#undef CL_COL
#undef CL_END

/* the column types; their values are SQLite's fundamental datatypes
 * (SQLITE_INTEGER, SQLITE_TEXT, SQLITE_BLOB), so they compare with
 * sqlite3_column_type.  And each column's (CL_TYPE_<table>_<column>), for
 * checks at compile time. */
enum cl_sqltype {
  CL_SQL_INTEGER = 1,
  CL_SQL_TEXT = 3,
  CL_SQL_BLOB = 4,
#define CL_COL(t, c, type, cons) CL_TYPE_##t##_##c = CL_SQL_##type,
#include "cudalens/tables.def"
#undef CL_COL
};

/* the meta keys: CL_META_<key>, CL_NMETA; cl_meta_key() gives the text */
enum cl_meta {
#define CL_META(k, doc) CL_META_##k,
#include "cudalens/tables.def"
#undef CL_META
  CL_NMETA
};

struct cl_column {
  const char *name;
  enum cl_sqltype type;
  const char *constraints; /* "" or e.g. "NOT NULL" */
};

/* which kind of file a table belongs to (the meta table: both) */
enum cl_file {
  CL_FILE_RECORDING = 1,       /* a recording (CL_TABLE) */
  CL_FILE_FOOTPRINT = 2        /* a footprint file (CL_FP_TABLE) */
};

struct cl_table_decl {
  const char *name;
  int file;                    /* enum cl_file bits */
  int since;                   /* the schema version that added it (of a
                                * footprint file: CL_FOOTPRINT_VERSION's) */
  const struct cl_column *cols;
  int ncols;
  const char *constraints;     /* after the columns, e.g. PRIMARY KEY(...) */
  const char *options;         /* after the parenthesis: WITHOUT ROWID */
};

extern const struct cl_table_decl cl_tables[CL_NTABLES];

/* the table called NAME, or NULL */
const struct cl_table_decl *cl_table_named(const char *name);
/* meta key K's name and its one-line meaning */
const char *cl_meta_key(enum cl_meta k);
const char *cl_meta_meaning(enum cl_meta k);

/* a set of columns of table T, for cl_select_sql: CL_COLS(calls, seq) |
 * CL_COLS(calls, tid) ...; CL_ALL_COLS every column.  CL_RANK(set, t, c):
 * where column C of T is among the columns of SET (its result column in
 * cl_select_sql's SELECT of SET; CL_COL_T_C for CL_ALL_COLS). */
#define CL_COLS(t, c) (1ULL << CL_COL_##t##_##c)
#define CL_ALL_COLS (~0ULL)
#define CL_RANK(set, t, c)                                                     \
  __builtin_popcountll((set) & (CL_COLS(t, c) - 1))
#define CL_TABLE(t, since) _Static_assert(
#define CL_END(t, tcons, opts) CL_NCOLS_##t <= 64, #t ": over 64 columns");
#include "cudalens/tables.def"
#undef CL_TABLE
#undef CL_END

/* SQL text into BUF (of SIZE bytes): its length, or -1 when it does not
 * fit.  cl_select_sql: "SELECT <the columns of T in COLS (a CL_COLS set), in
 * the order of tables.def> FROM <T> <tail>"; cl_insert_sql: "<verb> INTO <T>
 * VALUES(?,...)<tail>", one parameter per column. */
int cl_select_sql(char *buf, size_t size, enum cl_table t,
                  unsigned long long cols, const char *tail);
int cl_insert_sql(char *buf, size_t size, const char *verb, enum cl_table t,
                  const char *tail);

/* The SQL that creates an empty recording: the tables, then the views
 * (without user_version, which the caller sets with CL_SCHEMA_VERSION).
 * Built once, kept for the life of the process. */
const char *cl_schema_sql(void);
#define CL_SCHEMA_SQL cl_schema_sql()
/* The same for schema VERSION (an older one: for tests that write
 * recordings as older recorders did) into BUF of SIZE bytes: the tables
 * there then and the views (one named as a table only once the table is
 * retired); its length, or -1 when it does not fit. */
int cl_schema_sql_of(char *buf, size_t size, int version);
/* The schema version from which table T is no longer written
 * (tables.def's CL_RETIRED), 0 when it still is. */
int cl_table_until(enum cl_table t);
/* The same for an empty footprint file: its tables (CL_FILE_FOOTPRINT),
 * without user_version (CL_FOOTPRINT_VERSION, format.h). */
const char *cl_footprint_schema_sql(void);
/* The indexes of a finished recording (CREATE INDEX IF NOT EXISTS ...). */
extern const char CL_INDEX_SQL[];

#endif

/* test_tables.c - the recording's tables as declared in tables.def: the
 * schema text they generate is valid SQL that creates every declared table
 * with every declared column (name, type, NOT NULL, key) in order and
 * nothing else; schema 3's tables (tests/unit/common/schema-3.sql, the text of
 * CL_SCHEMA_SQL when it was hand-written) keep their text, or gained
 * columns at their end only; the generated SELECTs and INSERTs name every
 * column; the views and indexes work; meta keys are unique and explained;
 * man/cudalens-db.5 has a paragraph for every table, column and meta key. */
#include <sqlite3.h>

#include "cudalens/format.h"
#include "../unit.h"
#include "../unit_db.h"

/* the text of file PATH, malloc'd (NULL: unreadable) */
static char *slurp(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  char *buf = malloc(1 << 16);
  size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
  fclose(f);
  if (buf)
    buf[n] = 0;
  return buf;
}

/* is table T in recordings of schema VERSION? */
static int in_version(int t, int version)
{
  int until = cl_table_until((enum cl_table)t);
  return cl_tables[t].since <= version && (!until || version < until);
}

/* the schema of a kind of FILE (a recording: of schema VERSION) as SQLite
 * sees it: every declared table, column by column */
static void check_tables(sqlite3 *db, int file, int version)
{
  int ntables = 0;
  sqlite3_stmt *st;
  CHECK(sqlite3_prepare_v2(db,
                           "SELECT name, type, \"notnull\", pk FROM"
                           " pragma_table_info(?1) ORDER BY cid",
                           -1, &st, NULL) == SQLITE_OK);
  for (int t = 0; t < CL_NTABLES; t++) {
    const struct cl_table_decl *d = &cl_tables[t];
    CHECK(cl_table_named(d->name) == d);
    CHECK(d->file == CL_FILE_RECORDING || d->file == CL_FILE_FOOTPRINT ||
          t == CL_TABLE_meta);
    if (!(d->file & file) ||
        (file == CL_FILE_RECORDING && !in_version(t, version)))
      continue;
    ntables++;
    CHECK(d->since >= 1 &&
          d->since <= (d->file == CL_FILE_FOOTPRINT ? CL_FOOTPRINT_VERSION
                                                    : CL_SCHEMA_VERSION));
    sqlite3_bind_text(st, 1, d->name, -1, SQLITE_STATIC);
    int c = 0;
    for (; sqlite3_step(st) == SQLITE_ROW; c++) {
      if (c >= d->ncols)
        continue;
      const struct cl_column *col = &d->cols[c];
      static const char *const types[] = {[CL_SQL_INTEGER] = "INTEGER",
                                          [CL_SQL_TEXT] = "TEXT",
                                          [CL_SQL_BLOB] = "BLOB"};
      CHECK_STR((const char *)sqlite3_column_text(st, 0), col->name);
      CHECK_STR((const char *)sqlite3_column_text(st, 1), types[col->type]);
      CHECK(sqlite3_column_int(st, 2) ==
            (strstr(col->constraints, "NOT NULL") != NULL));
      /* a key: PRIMARY KEY of the column, or named in the table's */
      int key = strstr(col->constraints, "PRIMARY KEY") != NULL;
      const char *pk = strstr(d->constraints, "PRIMARY KEY(");
      if (pk) {
        char word[64];
        snprintf(word, sizeof word, "%s", col->name);
        for (const char *p = pk + 12; *p && *p != ')';) {
          size_t n = strcspn(p, ",)");
          if (n == strlen(word) && !strncmp(p, word, n))
            key = 1;
          p += n;
          p += strspn(p, ", ");
        }
      }
      CHECK((sqlite3_column_int(st, 3) != 0) == key);
    }
    if (c != d->ncols)
      fprintf(stderr, "table %s: %d columns, %d declared\n", d->name, c,
              d->ncols);
    CHECK(c == d->ncols);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  /* nothing undeclared */
  CHECK(query(db, "SELECT count(*) FROM sqlite_master WHERE type='table'") ==
        ntables);
}

/* each table's SELECT and INSERT of every column (kernel_args and
 * uninit_params since schema 6: the SELECTs read their views) */
static void check_statements(sqlite3 *db, int file, int version)
{
  for (int t = 0; t < CL_NTABLES; t++) {
    const struct cl_table_decl *d = &cl_tables[t];
    if (!(d->file & file) ||
        (file == CL_FILE_RECORDING && !in_version(t, version) &&
         !(cl_table_until(t) && version >= cl_table_until(t))))
      continue;
    char sql[1024];
    sqlite3_stmt *st = NULL;
    CHECK(cl_select_sql(sql, sizeof sql, t, CL_ALL_COLS, "ORDER BY 1") > 0);
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_column_count(st) == d->ncols);
    for (int c = 0; c < d->ncols && st; c++)
      CHECK_STR(sqlite3_column_name(st, c), d->cols[c].name);
    sqlite3_finalize(st);
    /* the first and last columns only */
    unsigned long long ends = 1ULL | 1ULL << (d->ncols - 1);
    CHECK(cl_select_sql(sql, sizeof sql, t, ends, "") > 0);
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_column_count(st) == (d->ncols > 1 ? 2 : 1));
    CHECK_STR(sqlite3_column_name(st, 0), d->cols[0].name);
    CHECK_STR(sqlite3_column_name(st, d->ncols > 1),
              d->cols[d->ncols - 1].name);
    sqlite3_finalize(st);
    CHECK(cl_insert_sql(sql, sizeof sql, "INSERT OR IGNORE", t, "") > 0);
    if (file != CL_FILE_RECORDING || in_version(t, version)) { /* a view takes none */
      CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
      CHECK(sqlite3_bind_parameter_count(st) == d->ncols);
      sqlite3_finalize(st);
    }
    /* too small a buffer says so */
    CHECK(cl_select_sql(sql, 10, t, CL_ALL_COLS, "") == -1);
  }
  if (file != CL_FILE_RECORDING)
    return;
  /* the generated numbering: the enums are the declaration's order */
  CHECK(CL_COL_calls_seq == 0 && CL_NCOLS_calls == cl_tables[CL_TABLE_calls].ncols);
  CHECK_STR(cl_tables[CL_TABLE_calls].cols[CL_COL_calls_tid].name, "tid");
  CHECK_STR(cl_tables[CL_TABLE_activity].cols[CL_COL_activity_name].name, "name");
  CHECK(CL_TYPE_activity_kind == CL_SQL_TEXT &&
        CL_TYPE_stacks_frames == CL_SQL_BLOB);
  CHECK(!strcmp(cl_tables[CL_TABLE_kernel_args].options, "WITHOUT ROWID"));
  char sql[256];
  unsigned long long set = CL_COLS(transfers, seq) | CL_COLS(transfers, dst) |
                           CL_COLS(transfers, async);
  CHECK(cl_select_sql(sql, sizeof sql, CL_TABLE_transfers, set,
                      "ORDER BY seq") > 0);
  CHECK_STR(sql, "SELECT seq, dst, async FROM transfers ORDER BY seq");
  CHECK(CL_RANK(set, transfers, seq) == 0 && CL_RANK(set, transfers, dst) == 1 &&
        CL_RANK(set, transfers, async) == 2);
  CHECK(CL_RANK(CL_ALL_COLS, transfers, async) == CL_COL_transfers_async);
  CHECK(cl_tables[CL_TABLE_mem_access].since == 4 &&
        cl_tables[CL_TABLE_alloc_handles].since == 4 &&
        cl_tables[CL_TABLE_uninit_params].since == 5 &&
        cl_tables[CL_TABLE_launch_args].since == 6 &&
        cl_tables[CL_TABLE_graph_uninit_params].since == 7 &&
        CL_SCHEMA_VERSION == 7);
  /* kernel_args and uninit_params written up to schema 5, views since */
  CHECK(cl_table_until(CL_TABLE_kernel_args) == 6 &&
        cl_table_until(CL_TABLE_uninit_params) == 6 &&
        cl_table_until(CL_TABLE_launch_args) == 0 &&
        cl_table_until(CL_TABLE_calls) == 0);
  CHECK(cl_tables[CL_TABLE_names].since == 3 &&
        cl_tables[CL_TABLE_thread_edges].since == 2 &&
        cl_tables[CL_TABLE_calls].since == 1);
}

/* launch_args words (format.h) read back through the views kernel_args and
 * uninit_params: fields in place, a value with its top bit set as the
 * stored integer, the uninit flag */
static void check_launch_args(sqlite3 *db)
{
  unsigned char w[3 * CL_LAUNCH_ARG_SIZE];
  cl_launch_arg_put(w, 0, 0, 0, 0x7f0000001000ull);
  cl_launch_arg_put(w + CL_LAUNCH_ARG_SIZE, 2, 264, CL_LAUNCH_ARG_UNINIT,
                    0xfedcba9876543210ull);
  cl_launch_arg_put(w + 2 * CL_LAUNCH_ARG_SIZE, 2, 272, CL_LAUNCH_ARG_UNINIT,
                    1);
  unsigned param, offset, flags;
  unsigned long long value;
  cl_launch_arg_get(w + CL_LAUNCH_ARG_SIZE, &param, &offset, &flags, &value);
  CHECK(param == 2 && offset == 264 && flags == CL_LAUNCH_ARG_UNINIT &&
        value == 0xfedcba9876543210ull);
  sqlite3_stmt *st;
  CHECK(sqlite3_prepare_v2(db, "INSERT INTO launch_args VALUES(?1, ?2)", -1,
                           &st, NULL) == SQLITE_OK);
  sqlite3_bind_int64(st, 1, 7);
  sqlite3_bind_blob(st, 2, w, sizeof w, SQLITE_STATIC);
  CHECK(sqlite3_step(st) == SQLITE_DONE);
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, 9);
  sqlite3_bind_blob(st, 2, w, CL_LAUNCH_ARG_SIZE, SQLITE_STATIC);
  CHECK(sqlite3_step(st) == SQLITE_DONE);
  sqlite3_finalize(st);
  CHECK(query(db, "SELECT count(*) FROM kernel_args") == 4);
  CHECK(query(db, "SELECT count(*) FROM kernel_args WHERE seq = 7 AND"
                  " param = 0 AND offset = 0 AND value = 139637976731648") == 1);
  CHECK(query(db, "SELECT count(*) FROM kernel_args WHERE seq = 7 AND"
                  " param = 2 AND offset = 264 AND value = -81985529216486896")
        == 1);
  CHECK(query(db, "SELECT count(*) FROM kernel_args WHERE seq = 7 AND"
                  " param = 2 AND offset = 272 AND value = 1") == 1);
  CHECK(query(db, "SELECT count(*) FROM kernel_args WHERE seq = 9") == 1);
  CHECK(query(db, "SELECT count(*) FROM uninit_params") == 1);
  CHECK(query(db, "SELECT count(*) FROM uninit_params WHERE seq = 7 AND"
                  " param = 2") == 1);
  CHECK(sqlite3_exec(db, "DELETE FROM launch_args", NULL, NULL, NULL) ==
        SQLITE_OK);
}

/* the statements of schema 3: each still in the schema word for word, or
 * its table has only gained columns (checked on the columns) */
static void check_schema3(const char *schema)
{
  const char *top = getenv("CL_TOP_SRCDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/unit/common/schema-3.sql", top ? top : ".");
  char *old = slurp(path);
  CHECK(old != NULL);
  if (!old)
    return;
  if (CL_SCHEMA_VERSION == 3)
    CHECK_STR(schema, old); /* the declaration changed nothing */
  sqlite3 *was, *now;
  CHECK(sqlite3_open(":memory:", &was) == SQLITE_OK &&
        sqlite3_exec(was, old, NULL, NULL, NULL) == SQLITE_OK);
  CHECK(sqlite3_open(":memory:", &now) == SQLITE_OK &&
        sqlite3_exec(now, schema, NULL, NULL, NULL) == SQLITE_OK);
  for (char *line = strtok(old, "\n"); line; line = strtok(NULL, "\n")) {
    if (strstr(schema, line))
      continue;
    char table[64] = "";
    sscanf(line, "CREATE TABLE %63[a-z_]", table);
    fprintf(stderr, "schema 3's '%s' changed: %s\n", table, line);
    CHECK(table[0] != 0); /* views do not change */
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT group_concat(name||type||\"notnull\"||pk, ',') FROM"
             " (SELECT * FROM pragma_table_info('%s') ORDER BY cid)",
             table);
    sqlite3_stmt *a, *b;
    sqlite3_prepare_v2(was, sql, -1, &a, NULL);
    sqlite3_prepare_v2(now, sql, -1, &b, NULL);
    CHECK(sqlite3_step(a) == SQLITE_ROW && sqlite3_step(b) == SQLITE_ROW);
    const char *ca = (const char *)sqlite3_column_text(a, 0);
    const char *cb = (const char *)sqlite3_column_text(b, 0);
    /* the old columns first, the same */
    CHECK(ca && cb && !strncmp(ca, cb, strlen(ca)) && cb[strlen(ca)] == ',');
    sqlite3_finalize(a);
    sqlite3_finalize(b);
  }
  sqlite3_close(was);
  sqlite3_close(now);
  free(old);
}

/* does SECTION (up to the next .SS or .SH) name WORD in bold (a .B, .BR or
 * .RB line: a paragraph tag or the text)? */
static int tagged(const char *section, const char *word)
{
  size_t n = strlen(word);
  for (const char *l = section; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    if (!strncmp(l, ".SS", 3) || !strncmp(l, ".SH", 3))
      return 0;
    if (strncmp(l, ".B", 2) && strncmp(l, ".RB", 3))
      continue;
    for (const char *w = strstr(l, word); w && w < strchr(l, '\n');
         w = strstr(w + 1, word))
      if ((w[-1] == ' ' || w[-1] == '"') &&
          (w[n] == ' ' || w[n] == '"' || w[n] == '\n'))
        return 1;
  }
  return 0;
}

/* the man page documents each table, column and meta key */
static void check_manual(void)
{
  const char *top = getenv("CL_TOP_SRCDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/man/cudalens-db.5", top ? top : ".");
  char *man = slurp(path);
  CHECK(man != NULL);
  for (int t = 0; man && t < CL_NTABLES; t++) {
    const struct cl_table_decl *d = &cl_tables[t];
    char head[128];
    snprintf(head, sizeof head, "\n.SS %s\n", d->name);
    const char *sec = strstr(man, head);
    if (!sec)
      fprintf(stderr, "cudalens-db.5 has no section %s\n", d->name);
    CHECK(sec != NULL);
    for (int c = 0; sec && c < d->ncols; c++)
      if (!tagged(sec + strlen(head), d->cols[c].name)) {
        fprintf(stderr, "cudalens-db.5 does not describe %s.%s\n", d->name,
                d->cols[c].name);
        CHECK(0);
      }
    if (t == CL_TABLE_meta)
      for (int k = 0; sec && k < CL_NMETA; k++)
        if (!tagged(sec + strlen(head), cl_meta_key(k))) {
          fprintf(stderr, "cudalens-db.5 does not describe meta key %s\n",
                  cl_meta_key(k));
          CHECK(0);
        }
  }
  free(man);
}

int main(void)
{
  const char *schema = CL_SCHEMA_SQL;
  CHECK(schema[0] != 0);
  CHECK(schema == CL_SCHEMA_SQL); /* built once */
  sqlite3 *db;
  CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
  char *err = NULL;
  CHECK(sqlite3_exec(db, schema, NULL, NULL, &err) == SQLITE_OK);
  if (err)
    fprintf(stderr, "schema: %s\n", err);
  CHECK(sqlite3_exec(db, CL_INDEX_SQL, NULL, NULL, &err) == SQLITE_OK);
  CHECK(query(db, "SELECT count(*) FROM sqlite_master WHERE type='index'"
                  " AND name='activity_correlation'") == 1);
  check_tables(db, CL_FILE_RECORDING, CL_SCHEMA_VERSION);
  check_statements(db, CL_FILE_RECORDING, CL_SCHEMA_VERSION);
  /* the views read */
  CHECK(query(db, "SELECT count(*) FROM ops") == 0);
  CHECK(query(db, "SELECT count(*) FROM call_activity") == 0);
  CHECK(query(db, "SELECT count(*) FROM sqlite_master WHERE type='view'") == 4);
  check_launch_args(db);
  sqlite3_close(db);
  /* schema 5, as its recorders wrote it: kernel_args and uninit_params
   * tables, no launch_args */
  static char v5[16384], v3[16384];
  CHECK(cl_schema_sql_of(v3, 100, 5) == -1); /* too small a buffer */
  CHECK(cl_schema_sql_of(v5, sizeof v5, 5) > 0);
  CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
  CHECK(sqlite3_exec(db, v5, NULL, NULL, NULL) == SQLITE_OK);
  check_tables(db, CL_FILE_RECORDING, 5);
  check_statements(db, CL_FILE_RECORDING, 5);
  CHECK(query(db, "SELECT count(*) FROM sqlite_master WHERE type='view'") == 2);
  CHECK(query(db, "SELECT count(*) FROM sqlite_master WHERE type='table'"
                  " AND name IN ('kernel_args', 'uninit_params')") == 2);
  sqlite3_close(db);
  CHECK(cl_schema_sql_of(v3, sizeof v3, 3) > 0);
  check_schema3(v3);
  /* a footprint file: meta and its own tables, no views; none of them in a
   * recording */
  CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
  CHECK(cl_footprint_schema_sql()[0] != 0);
  CHECK(sqlite3_exec(db, cl_footprint_schema_sql(), NULL, NULL, &err) ==
        SQLITE_OK);
  if (err)
    fprintf(stderr, "footprint schema: %s\n", err);
  check_tables(db, CL_FILE_FOOTPRINT, 0);
  check_statements(db, CL_FILE_FOOTPRINT, 0);
  CHECK(query(db, "SELECT count(*) FROM sqlite_master WHERE type='view'") == 0);
  CHECK(query(db, "SELECT count(*) FROM sqlite_master WHERE name='fp_ranges'") == 1);
  CHECK(query(db, "SELECT count(*) FROM sqlite_master WHERE name='calls'") == 0);
  sqlite3_close(db);
  CHECK(!strstr(schema, "fp_ranges") && !strstr(schema, "fp_kernels"));
  CHECK(cl_tables[CL_TABLE_fp_ranges].file == CL_FILE_FOOTPRINT &&
        cl_tables[CL_TABLE_meta].file ==
            (CL_FILE_RECORDING | CL_FILE_FOOTPRINT));
  CHECK_STR(cl_fp_kind_name(CL_FP_ATOMIC), "atomic");
  CHECK(cl_fp_kind_of("write") == CL_FP_WRITE && cl_fp_kind_of("x") == -1);
  /* meta keys: unique, each explained */
  for (int k = 0; k < CL_NMETA; k++) {
    CHECK(cl_meta_key(k) && *cl_meta_key(k));
    CHECK(cl_meta_meaning(k) && *cl_meta_meaning(k));
    for (int j = 0; j < k; j++)
      CHECK(strcmp(cl_meta_key(j), cl_meta_key(k)) != 0);
  }
  CHECK_STR(cl_meta_key(CL_META_format), "format");
  CHECK(cl_meta_key(CL_NMETA) == NULL);
  check_manual();
  UNIT_DONE();
}

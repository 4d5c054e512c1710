# tests/unit/local.mk - the C unit tests, one folder per layer of the code
# they test: common/ (the format, the ordering table, output paths), shim/
# (the recorder's pieces), analyzer/, launcher/.  Every one asserts with
# tests/unit/unit.h; a script test of a folder (NAME.test) is collected in
# tests/tests.mk (UNIT_SCRIPT_TESTS).

unit_cflags = $(AM_CFLAGS) -I$(top_srcdir) $(SQLITE_CFLAGS)
unit_ldadd = libclshim.la libclsqlite.la $(SQLITE_LIBS) -ldl -lpthread
UNIT_TESTS =

# ---- common/
# output paths (-o PATTERN)
UNIT_TESTS += tests/unit/common/test_outpath
tests_unit_common_test_outpath_SOURCES = tests/unit/common/test_outpath.c tests/unit/unit.h
tests_unit_common_test_outpath_CFLAGS = $(unit_cflags)
tests_unit_common_test_outpath_LDADD = $(unit_ldadd)

# the tables of tables.def: schema, statements, schema 3 kept
UNIT_TESTS += tests/unit/common/test_tables
tests_unit_common_test_tables_SOURCES = tests/unit/common/test_tables.c tests/unit/unit.h tests/unit/unit_db.h
tests_unit_common_test_tables_CFLAGS = $(unit_cflags)
tests_unit_common_test_tables_LDADD = libclformat.la $(SQLITE_LIBS) -lpthread
EXTRA_DIST += tests/unit/common/schema-3.sql

# the coverage rule of ops.def (section 3b) and the stream-task column
UNIT_TESTS += tests/unit/common/test_coverage
tests_unit_common_test_coverage_SOURCES = tests/unit/common/test_coverage.c tests/unit/unit.h
tests_unit_common_test_coverage_CFLAGS = $(unit_cflags)
tests_unit_common_test_coverage_LDADD = libclformat.la $(SQLITE_LIBS) -lpthread

# ---- shim/
UNIT_TESTS += tests/unit/shim/test_writer tests/unit/shim/test_writer_rows
tests_unit_shim_test_writer_SOURCES = tests/unit/shim/test_writer.c tests/unit/unit.h tests/unit/unit_db.h
tests_unit_shim_test_writer_CFLAGS = $(unit_cflags)
tests_unit_shim_test_writer_LDADD = $(unit_ldadd)
tests_unit_shim_test_writer_rows_SOURCES = tests/unit/shim/test_writer_rows.c tests/unit/unit.h tests/unit/unit_db.h
tests_unit_shim_test_writer_rows_CFLAGS = $(unit_cflags)
tests_unit_shim_test_writer_rows_LDADD = $(unit_ldadd)

UNIT_TESTS += tests/unit/shim/test_stack
tests_unit_shim_test_stack_SOURCES = tests/unit/shim/test_stack.c \
	tests/unit/shim/stack_sites.h tests/unit/unit.h
tests_unit_shim_test_stack_CFLAGS = $(unit_cflags) -O1 -fno-omit-frame-pointer
tests_unit_shim_test_stack_LDADD = $(unit_ldadd)

# the kernel-parameter scan, four words at a time and word by word (its
# cuFuncGetParamInfo exported: the shim looks the driver's up by name)
UNIT_TESTS += tests/unit/shim/test_kparams
tests_unit_shim_test_kparams_SOURCES = tests/unit/shim/test_kparams.c tests/unit/unit.h
tests_unit_shim_test_kparams_CFLAGS = $(unit_cflags)
tests_unit_shim_test_kparams_LDFLAGS = -rdynamic
tests_unit_shim_test_kparams_LDADD = $(unit_ldadd)

UNIT_TESTS += tests/unit/shim/test_cuptifind
tests_unit_shim_test_cuptifind_SOURCES = tests/unit/shim/test_cuptifind.c tests/unit/unit.h
tests_unit_shim_test_cuptifind_CFLAGS = $(unit_cflags)
tests_unit_shim_test_cuptifind_LDADD = $(unit_ldadd)

UNIT_TESTS += tests/unit/shim/test_allocmap
tests_unit_shim_test_allocmap_SOURCES = tests/unit/shim/test_allocmap.c tests/unit/unit.h
tests_unit_shim_test_allocmap_CFLAGS = $(unit_cflags)
tests_unit_shim_test_allocmap_LDADD = $(unit_ldadd)

UNIT_TESTS += tests/unit/shim/test_hostcode
tests_unit_shim_test_hostcode_SOURCES = tests/unit/shim/test_hostcode.c tests/unit/unit.h
tests_unit_shim_test_hostcode_CFLAGS = $(unit_cflags)
tests_unit_shim_test_hostcode_LDADD = $(unit_ldadd)

UNIT_TESTS += tests/unit/shim/test_objects
tests_unit_shim_test_objects_SOURCES = tests/unit/shim/test_objects.c tests/unit/unit.h
tests_unit_shim_test_objects_CFLAGS = $(unit_cflags)
tests_unit_shim_test_objects_LDADD = $(unit_ldadd)

UNIT_TESTS += tests/unit/shim/test_protmap
tests_unit_shim_test_protmap_SOURCES = tests/unit/shim/test_protmap.c tests/unit/unit.h
tests_unit_shim_test_protmap_CFLAGS = $(unit_cflags)
tests_unit_shim_test_protmap_LDADD = $(unit_ldadd)

# ---- footprint/
# the collector's summary and file, read back by the report's reader
UNIT_TESTS += tests/unit/footprint/test_fp_summary
tests_unit_footprint_test_fp_summary_SOURCES = tests/unit/footprint/test_fp_summary.c tests/unit/unit.h
tests_unit_footprint_test_fp_summary_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) \
	-I$(top_srcdir)/footprint -I$(top_srcdir)/shim $(ANALYZER_CPPFLAGS) $(SQLITE_CFLAGS)
tests_unit_footprint_test_fp_summary_LDADD = libclfootprint.la libclreport.la \
	libclsqlite.la libclformat.la $(SQLITE_LIBS) -ldl -lpthread

# ---- analyzer/
unit_analyzer_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir) $(ANALYZER_CPPFLAGS) $(SQLITE_CFLAGS)
# cl_kernel_brief, from the analyzer's library
UNIT_TESTS += tests/unit/analyzer/test_kernel_brief
tests_unit_analyzer_test_kernel_brief_SOURCES = tests/unit/analyzer/test_kernel_brief.c tests/unit/unit.h
tests_unit_analyzer_test_kernel_brief_CPPFLAGS = $(AM_CPPFLAGS) $(ANALYZER_CPPFLAGS)
tests_unit_analyzer_test_kernel_brief_LDADD = libclreport.la

# the happens-before engine and the const-parameter parser
UNIT_TESTS += tests/unit/analyzer/test_hb
tests_unit_analyzer_test_hb_SOURCES = tests/unit/analyzer/test_hb.c tests/unit/unit.h
tests_unit_analyzer_test_hb_CPPFLAGS = $(unit_analyzer_cppflags)
tests_unit_analyzer_test_hb_LDADD = libclreport.la

# the call-site resolver on the test's own stack, described by the
# recorder's scan of its loaded objects (-g: its own lines are looked up)
UNIT_TESTS += tests/unit/analyzer/test_callsite
tests_unit_analyzer_test_callsite_SOURCES = tests/unit/analyzer/test_callsite.c \
	tests/unit/analyzer/resolver.h tests/unit/unit.h
tests_unit_analyzer_test_callsite_CPPFLAGS = $(unit_analyzer_cppflags)
tests_unit_analyzer_test_callsite_CFLAGS = $(AM_CFLAGS) -g
tests_unit_analyzer_test_callsite_LDADD = libclreport.la libclshim.la libclsqlite.la $(SQLITE_LIBS) -ldl -lpthread

# the call-site resolver's Python rules and calls.pystack
UNIT_TESTS += tests/unit/analyzer/test_pysite
tests_unit_analyzer_test_pysite_SOURCES = tests/unit/analyzer/test_pysite.c \
	tests/unit/analyzer/resolver.h tests/unit/unit.h
tests_unit_analyzer_test_pysite_CPPFLAGS = $(unit_analyzer_cppflags)
tests_unit_analyzer_test_pysite_LDADD = libclreport.la

# the model's lookups (names.c, calls.c) against SQL written in the test, on
# the recordings tests/unit/analyzer/model.test builds from
# tests/recordings/small.sql (a program, not a test of its own)
check_PROGRAMS += tests/unit/analyzer/test_model
tests_unit_analyzer_test_model_SOURCES = tests/unit/analyzer/test_model.c tests/unit/unit.h
tests_unit_analyzer_test_model_CPPFLAGS = $(unit_analyzer_cppflags)
tests_unit_analyzer_test_model_LDADD = libclreport.la $(SQLITE_LIBS) -lpthread

# ---- launcher/
# the launcher's helpers (launcher.c without its main)
UNIT_TESTS += tests/unit/launcher/launcher_test
tests_unit_launcher_launcher_test_SOURCES = tests/unit/launcher/launcher_test.c \
	launcher/launcher.c launcher/launcher.h common/outpath.c \
	include/cudalens/outpath.h tests/unit/unit.h
tests_unit_launcher_launcher_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) \
	-DCL_LAUNCHER_NO_MAIN \
	-DCL_SHIM_PATH='"$(libdir)/libcudalens.so"' \
	-DCL_REPORT_PATH='"$(bindir)/cudalens-report"'

check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS) $(UNIT_SCRIPT_TESTS)
EXTRA_DIST += $(UNIT_SCRIPT_TESTS)

# tests/local.mk - the test suite: C unit tests of the shim's pieces, and
# end-to-end .test scripts that run sample apps under the shim against the
# simulated CUDA runtime (tests/sim), run through tests/run-test.sh.
TEST_EXTENSIONS += .test
TEST_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh
# CL_SAN_SUFFIX: -san in make check-sanitize (analyzer/sanitize.mk), whose
# tests run the sanitized cudalens-report-san and friends.  Suppression
# files of the caller's CUDALENS_SUPPRESSIONS must not change reports.
CL_SAN_SUFFIX =
AM_TESTS_ENVIRONMENT = CL_TOP_BUILDDIR='$(abs_top_builddir)'; \
	CL_TOP_SRCDIR='$(abs_top_srcdir)'; CL_SAN_SUFFIX='$(CL_SAN_SUFFIX)'; \
	export CL_TOP_BUILDDIR CL_TOP_SRCDIR CL_SAN_SUFFIX; \
	unset CUDALENS_SUPPRESSIONS;
EXTRA_DIST += tests/run-test.sh tests/lib.sh tests/marks.sh
# the test scripts of the folders, listed by tests/collect.sh (tests.mk,
# included by Makefile.am); collected.test checks the list is up to date
TESTS += $(COLLECTED_TESTS)
EXTRA_DIST += tests/collect.sh tests/tests.mk $(COLLECTED_TESTS)

unit_cflags = $(AM_CFLAGS) -I$(top_srcdir) $(SQLITE_CFLAGS)
unit_ldadd = libclshim.la libclsqlite.la $(SQLITE_LIBS) -ldl -lpthread

check_PROGRAMS += tests/unit/test_outpath tests/unit/test_writer \
	tests/unit/test_stack tests/unit/test_cuptifind tests/unit/test_allocmap \
	tests/unit/test_hostcode
tests_unit_test_hostcode_SOURCES = tests/unit/test_hostcode.c tests/unit/unit.h
tests_unit_test_hostcode_CFLAGS = $(unit_cflags)
tests_unit_test_hostcode_LDADD = $(unit_ldadd)
tests_unit_test_outpath_SOURCES = tests/unit/test_outpath.c tests/unit/unit.h
tests_unit_test_outpath_CFLAGS = $(unit_cflags)
tests_unit_test_outpath_LDADD = $(unit_ldadd)
tests_unit_test_writer_SOURCES = tests/unit/test_writer.c tests/unit/unit.h tests/unit/unit_db.h
tests_unit_test_writer_CFLAGS = $(unit_cflags)
tests_unit_test_writer_LDADD = $(unit_ldadd)
check_PROGRAMS += tests/unit/test_writer_rows
tests_unit_test_writer_rows_SOURCES = tests/unit/test_writer_rows.c tests/unit/unit.h tests/unit/unit_db.h
tests_unit_test_writer_rows_CFLAGS = $(unit_cflags)
tests_unit_test_writer_rows_LDADD = $(unit_ldadd)

tests_unit_test_stack_SOURCES = tests/unit/test_stack.c tests/unit/unit.h
tests_unit_test_stack_CFLAGS = $(unit_cflags) -O1 -fno-omit-frame-pointer
tests_unit_test_stack_LDADD = $(unit_ldadd)

tests_unit_test_cuptifind_SOURCES = tests/unit/test_cuptifind.c tests/unit/unit.h
tests_unit_test_cuptifind_CFLAGS = $(unit_cflags)
tests_unit_test_cuptifind_LDADD = $(unit_ldadd)

tests_unit_test_allocmap_SOURCES = tests/unit/test_allocmap.c tests/unit/unit.h
tests_unit_test_allocmap_CFLAGS = $(unit_cflags)
tests_unit_test_allocmap_LDADD = $(unit_ldadd)

# the tables of tables.def: schema, statements, schema 3 kept
check_PROGRAMS += tests/unit/test_tables
tests_unit_test_tables_SOURCES = tests/unit/test_tables.c tests/unit/unit.h tests/unit/unit_db.h
tests_unit_test_tables_CFLAGS = $(unit_cflags)
tests_unit_test_tables_LDADD = libclformat.la $(SQLITE_LIBS) -lpthread
EXTRA_DIST += tests/unit/schema-3.sql

# the coverage rule of ops.def (section 3b) and the stream-task column
check_PROGRAMS += tests/unit/test_coverage
tests_unit_test_coverage_SOURCES = tests/unit/test_coverage.c tests/unit/unit.h
tests_unit_test_coverage_CFLAGS = $(unit_cflags)
tests_unit_test_coverage_LDADD = libclformat.la $(SQLITE_LIBS) -lpthread

# cl_kernel_brief, from the analyzer's library
check_PROGRAMS += tests/unit/test_kernel_brief
tests_unit_test_kernel_brief_SOURCES = tests/unit/test_kernel_brief.c tests/unit/unit.h
tests_unit_test_kernel_brief_CPPFLAGS = $(AM_CPPFLAGS) $(ANALYZER_CPPFLAGS)
tests_unit_test_kernel_brief_LDADD = libclreport.la

TESTS += tests/unit/test_outpath tests/unit/test_writer tests/unit/test_writer_rows \
	tests/unit/test_tables tests/unit/test_coverage \
	tests/unit/test_stack \
	tests/unit/test_cuptifind tests/unit/test_allocmap tests/unit/test_hostcode \
	tests/unit/test_kernel_brief \
	$(UNIT_SCRIPT_TESTS)
EXTRA_DIST += $(UNIT_SCRIPT_TESTS)

# dbcheck: evaluates an expectation file (description: SQL) against a
# recording; shared by the .test scripts and the GPU suite
check_PROGRAMS += tests/dbcheck
tests_dbcheck_SOURCES = tests/dbcheck.c
tests_dbcheck_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_dbcheck_LDADD = $(SQLITE_LIBS)

# the GPU scripts of tests/gpu not listed with their suites (not run by
# make check: they need a GPU; see tests/gpu/run-all.sh)
EXTRA_DIST += tests/gpu/kit.sh tests/gpu/realtests.sh tests/gpu/run-all.sh \
	tests/gpu/torch_models.py tests/gpu/torch_models.sh tests/gpu/torch_ranks.py \
	tests/gpu/apitrace.c tests/gpu/cu12_host.c tests/gpu/nvidia_samples.sh \
	tests/gpu/samples_kit.sh tests/gpu/python_sites.sh \
	tests/gpu/torch_host.py tests/gpu/graphs.sh

# tests/recordings/local.mk - tests of cudalens-report on hand-written
# recordings (*.sql built into databases at test time by sql2db, reports
# compared with *.expected.txt / *.expected.json), and the call-site unit
# test.  The tests are .test scripts like every other (tests/run-test.sh
# gives them their paths), sourcing tests/recordings/common.sh.

check_PROGRAMS += tests/recordings/sql2db tests/recordings/test_callsite \
	tests/recordings/test_model
tests_recordings_sql2db_SOURCES = tests/recordings/sql2db.c
tests_recordings_sql2db_CPPFLAGS = $(AM_CPPFLAGS) $(SQLITE_CFLAGS)
tests_recordings_sql2db_LDADD = libclformat.la $(SQLITE_LIBS)

tests_recordings_test_callsite_SOURCES = tests/recordings/test_callsite.c tests/unit/analyzer/resolver.h
tests_recordings_test_callsite_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(ANALYZER_CPPFLAGS) $(SQLITE_CFLAGS)
tests_recordings_test_callsite_CFLAGS = $(AM_CFLAGS) -g
tests_recordings_test_callsite_LDADD = libclreport.la libclshim.la libclsqlite.la $(SQLITE_LIBS) -ldl -lpthread

# the model's lookups (names.c, calls.c) against SQL written in the test
tests_recordings_test_model_SOURCES = tests/recordings/test_model.c tests/unit/unit.h
tests_recordings_test_model_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(ANALYZER_CPPFLAGS) $(SQLITE_CFLAGS)
tests_recordings_test_model_LDADD = libclreport.la $(SQLITE_LIBS) -lpthread

# RECORDING_TESTS: the folder's test scripts, collected in tests/tests.mk
TESTS += $(RECORDING_TESTS)

EXTRA_DIST += $(RECORDING_TESTS) \
	tests/recordings/common.sh \
	tests/recordings/small.sql \
	tests/recordings/names.sql \
	tests/recordings/graphs.sql \
	tests/recordings/vmm.sql \
	tests/recordings/small.expected.txt \
	tests/recordings/small.expected.json \
	tests/recordings/empty.sql \
	tests/recordings/empty.expected.txt \
	tests/recordings/empty.expected.json \
	tests/recordings/newer.sql \
	tests/recordings/escape.sql \
	tests/recordings/escape.expected.txt \
	tests/recordings/escape.expected.json \
	tests/recordings/notrec.sql \
	tests/recordings/transfers.sql \
	tests/recordings/transfers.expected.txt \
	tests/recordings/transfers.expected.json \
	tests/recordings/extreme.sql \
	tests/recordings/extreme-small.expected.txt \
	tests/recordings/extreme-small.expected.json \
	tests/recordings/extreme-transfers.expected.txt \
	tests/recordings/sites.sql \
	tests/recordings/sites.expected.txt \
	tests/recordings/pyrun.sql \
	tests/recordings/rerun.sql \
	tests/recordings/pyrun.expected.txt \
	tests/recordings/pyrun.expected.json \
	tests/recordings/validate_json.py \
	tests/recordings/check_trace.py \
	tests/recordings/check_page.py \
	tests/recordings/measure.js \
	tests/recordings/chromium.sh \
	tests/recordings/walk.expected.perfetto \
	tests/recordings/pyrun.expected.sarif \
	tests/recordings/pyrun.expected.github \
	tests/recordings/pyrun-root.expected.txt \
	tests/recordings/pyrun-root.expected.github \
	tests/recordings/check_sarif.py \
	tests/recordings/sarif-schema-2.1.0.json

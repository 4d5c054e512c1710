# tests/recordings/local.mk - tests of cudalens-report on hand-written
# recordings (*.sql built into databases at test time by sql2db, reports
# compared with *.expected.txt / *.expected.json).  The tests are .test
# scripts like every other (tests/run-test.sh gives them their paths),
# sourcing tests/recordings/common.sh; so does tests/unit/analyzer/
# model.test, on small.sql.  The analyzer's C unit tests are in
# tests/unit/analyzer.

check_PROGRAMS += tests/recordings/sql2db
tests_recordings_sql2db_SOURCES = tests/recordings/sql2db.c
tests_recordings_sql2db_CPPFLAGS = $(AM_CPPFLAGS) $(SQLITE_CFLAGS)
tests_recordings_sql2db_LDADD = libclformat.la $(SQLITE_LIBS)

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

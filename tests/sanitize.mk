# tests/sanitize.mk - `make check-sanitize`: the analyzer and its tests
# built with -fsanitize=address,undefined, the shim with
# -fsanitize=undefined (copies named *-san, built only for this target),
# and the tests run with them: the recordings tests (cudalens-report-san),
# the fuzzer's smoke run (fuzz_report-san), the end-to-end tests, which
# preload libcudalens-san.so into the sample apps and report on what it
# recorded, and the analyzer's unit tests of tests/unit/analyzer
# (test_hb-san, test_callsite-san, test_pysite-san; test_model-san through
# model.test).  The shim gets UBSan alone: AddressSanitizer must be the
# first library a process loads, which a preloaded library is not.  Any
# sanitizer report fails the run.  The test results go to
# test-suite-sanitize.log.
SAN_COMPILE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -g -O1
SAN_LINK_FLAGS = -fsanitize=address,undefined
SHIM_SAN_FLAGS = -fsanitize=undefined -fno-sanitize-recover=all -g
# a sanitizer report exits with its own status (not the report's 1 or 2);
# the signals are left to the program and the shim (UBSan's own handlers
# would take the host check's faults and the tests' crashes)
SAN_ENV = ASAN_OPTIONS=exitcode=86:detect_leaks=1 \
	UBSAN_OPTIONS=exitcode=87:print_stacktrace=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
SAN_UNIT_TESTS = tests/unit/analyzer/test_hb-san$(EXEEXT) \
	tests/unit/analyzer/test_callsite-san$(EXEEXT) \
	tests/unit/analyzer/test_pysite-san$(EXEEXT)
SAN_PROGS = cudalens-report-san$(EXEEXT) \
	tests/unit/analyzer/test_model-san$(EXEEXT) \
	tests/fuzz/fuzz_report-san$(EXEEXT) $(SAN_UNIT_TESTS)
SANITIZE_TESTS = $(RECORDING_TESTS) $(FUZZ_TESTS) $(TR_TESTS) $(RACE_TESTS) $(SEM_TESTS) $(VMM_TESTS) \
	$(HOSTSYNC_TESTS) $(CAPTURE_TESTS) $(SIGNALS_TESTS) $(NCCL_TESTS) \
	$(PYTHON_SCRIPT_TESTS) tests/unit/analyzer/model.test

EXTRA_LTLIBRARIES = libclreport_san.la libclshim_san.la libcudalens-san.la
libclreport_san_la_SOURCES = $(libclreport_la_SOURCES) $(libclformat_la_SOURCES)
libclreport_san_la_CPPFLAGS = $(libclreport_la_CPPFLAGS)
libclreport_san_la_CFLAGS = $(AM_CFLAGS) $(SAN_COMPILE_FLAGS)
libclreport_san_la_LIBADD = $(SQLITE_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS) -lstdc++ -lm -lpthread

# the shim: its pieces and its life cycle as shim/local.mk builds them,
# with UBSan (-rpath: a shared library that is not installed)
libclshim_san_la_SOURCES = $(libclshim_la_SOURCES)
libclshim_san_la_CFLAGS = $(libclshim_la_CFLAGS) $(SHIM_SAN_FLAGS)
libcudalens_san_la_SOURCES = $(libcudalens_la_SOURCES)
libcudalens_san_la_CFLAGS = $(libcudalens_la_CFLAGS) $(SHIM_SAN_FLAGS)
libcudalens_san_la_LDFLAGS = $(libcudalens_la_LDFLAGS) -rpath $(libdir) \
	-fsanitize=undefined
libcudalens_san_la_LIBADD = libclshim_san.la -ldl -lpthread

EXTRA_PROGRAMS = cudalens-report-san tests/unit/analyzer/test_callsite-san \
	tests/unit/analyzer/test_model-san \
	tests/fuzz/fuzz_report-san tests/unit/analyzer/test_hb-san \
	tests/unit/analyzer/test_pysite-san
cudalens_report_san_SOURCES = $(cudalens_report_SOURCES)
cudalens_report_san_CPPFLAGS = $(cudalens_report_CPPFLAGS)
cudalens_report_san_CFLAGS = $(AM_CFLAGS) $(SAN_COMPILE_FLAGS)
cudalens_report_san_LDFLAGS = $(SAN_LINK_FLAGS)
cudalens_report_san_LDADD = libclreport_san.la

tests_unit_analyzer_test_callsite_san_SOURCES = $(tests_unit_analyzer_test_callsite_SOURCES)
tests_unit_analyzer_test_callsite_san_CPPFLAGS = $(tests_unit_analyzer_test_callsite_CPPFLAGS)
tests_unit_analyzer_test_callsite_san_CFLAGS = $(AM_CFLAGS) $(SAN_COMPILE_FLAGS)
tests_unit_analyzer_test_callsite_san_LDFLAGS = $(SAN_LINK_FLAGS)
tests_unit_analyzer_test_callsite_san_LDADD = libclreport_san.la libclshim.la libclsqlite.la \
	$(SQLITE_LIBS) -ldl -lpthread

tests_unit_analyzer_test_model_san_SOURCES = $(tests_unit_analyzer_test_model_SOURCES)
tests_unit_analyzer_test_model_san_CPPFLAGS = $(tests_unit_analyzer_test_model_CPPFLAGS)
tests_unit_analyzer_test_model_san_CFLAGS = $(AM_CFLAGS) $(SAN_COMPILE_FLAGS)
tests_unit_analyzer_test_model_san_LDFLAGS = $(SAN_LINK_FLAGS)
tests_unit_analyzer_test_model_san_LDADD = libclreport_san.la $(SQLITE_LIBS) -lpthread

tests_fuzz_fuzz_report_san_SOURCES = $(tests_fuzz_fuzz_report_SOURCES)
tests_fuzz_fuzz_report_san_CPPFLAGS = $(tests_fuzz_fuzz_report_CPPFLAGS)
tests_fuzz_fuzz_report_san_CFLAGS = $(AM_CFLAGS) $(SAN_COMPILE_FLAGS)
tests_fuzz_fuzz_report_san_LDFLAGS = $(SAN_LINK_FLAGS)
tests_fuzz_fuzz_report_san_LDADD = libclreport_san.la $(SQLITE_LIBS)

tests_unit_analyzer_test_hb_san_SOURCES = $(tests_unit_analyzer_test_hb_SOURCES)
tests_unit_analyzer_test_hb_san_CPPFLAGS = $(tests_unit_analyzer_test_hb_CPPFLAGS)
tests_unit_analyzer_test_hb_san_CFLAGS = $(AM_CFLAGS) $(SAN_COMPILE_FLAGS)
tests_unit_analyzer_test_hb_san_LDFLAGS = $(SAN_LINK_FLAGS)
tests_unit_analyzer_test_hb_san_LDADD = libclreport_san.la

tests_unit_analyzer_test_pysite_san_SOURCES = $(tests_unit_analyzer_test_pysite_SOURCES)
tests_unit_analyzer_test_pysite_san_CPPFLAGS = $(tests_unit_analyzer_test_pysite_CPPFLAGS)
tests_unit_analyzer_test_pysite_san_CFLAGS = $(AM_CFLAGS) $(SAN_COMPILE_FLAGS)
tests_unit_analyzer_test_pysite_san_LDFLAGS = $(SAN_LINK_FLAGS)
tests_unit_analyzer_test_pysite_san_LDADD = libclreport_san.la

CLEANFILES += $(SAN_PROGS) libclreport_san.la libclshim_san.la libcudalens-san.la \
	test-suite-sanitize.log \
	$(SAN_UNIT_TESTS:=.log)

.PHONY: check-sanitize
if HAVE_SANITIZERS
check-sanitize:
	$(MAKE) $(AM_MAKEFLAGS) $(SAN_PROGS) libcudalens-san.la
	$(SAN_ENV) $(MAKE) $(AM_MAKEFLAGS) check TESTS='$(SANITIZE_TESTS)' \
		CL_SAN_SUFFIX=-san TEST_SUITE_LOG=test-suite-sanitize.log
	@for t in $(SAN_UNIT_TESTS); do \
		if $(SAN_ENV) $$t >$$t.log 2>&1; then \
			echo "PASS: $$t"; \
		else \
			cat $$t.log; echo "FAIL: $$t"; exit 1; \
		fi; \
	done
	@echo "check-sanitize: the tests pass with the analyzer under ASan and UBSan, the shim under UBSan"
else
check-sanitize:
	@echo "check-sanitize: $(CC) cannot build with -fsanitize=address,undefined (see config.log)" >&2
	@exit 1
endif

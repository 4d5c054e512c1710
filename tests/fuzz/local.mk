# tests/fuzz/local.mk - the fuzzer of cudalens-report (fuzz_report.c: the
# report's own main() run in forked children on mutated recordings), its
# smoke runs in `make check` (smoke.test, a few hundred recordings;
# merge.test, a thousand merges of reduced results), and `make fuzz` for
# long runs:
#
#   make fuzz [FUZZ_RUNS=100000] [FUZZ_SEED=1] [FUZZ_TIMEOUT=10]
#
# seeds the fuzzer with the hand-written recordings of tests/recordings and,
# when they are built (make check), recordings of the sample apps made under
# the shim against the simulated runtime, and reduced results (.cldr) of
# the hand-written ones and of a generated job (tests/fuzz/seeds.sh, into
# tests/fuzz/seeds), then runs it; failing inputs are kept in tests/fuzz.
check_PROGRAMS += tests/fuzz/fuzz_report
tests_fuzz_fuzz_report_SOURCES = tests/fuzz/fuzz_report.c tests/fuzz/report_entry.c
tests_fuzz_fuzz_report_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(ANALYZER_CPPFLAGS) $(SQLITE_CFLAGS)
tests_fuzz_fuzz_report_LDADD = libclreport.la $(SQLITE_LIBS)

# FUZZ_TESTS: the folder's test scripts, collected in tests/tests.mk
TESTS += $(FUZZ_TESTS)
EXTRA_DIST += $(FUZZ_TESTS) tests/fuzz/seeds.sh tests/fuzz/README.md

FUZZ_RUNS = 100000
FUZZ_SEED = 1
FUZZ_TIMEOUT = 10
.PHONY: fuzz
fuzz: tests/fuzz/fuzz_report$(EXEEXT) tests/recordings/sql2db$(EXEEXT) \
	bench/gen_recording$(EXEEXT) cudalens-report$(EXEEXT)
	$(SHELL) $(srcdir)/tests/fuzz/seeds.sh '$(abs_top_srcdir)' '$(abs_top_builddir)' tests/fuzz/seeds
	tests/fuzz/fuzz_report$(EXEEXT) -n $(FUZZ_RUNS) -s $(FUZZ_SEED) \
		-t $(FUZZ_TIMEOUT) -o tests/fuzz tests/fuzz/seeds/*.db \
		tests/fuzz/seeds/*.cldr

clean-local: clean-fuzz-seeds
.PHONY: clean-fuzz-seeds
clean-fuzz-seeds:
	-rm -rf tests/fuzz/seeds

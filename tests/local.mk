# tests/local.mk - the test suite: C unit tests of the shim's pieces, and
# end-to-end .test scripts that run sample apps under the shim against the
# simulated CUDA runtime (tests/sim), run through tests/run-test.sh.
TEST_EXTENSIONS += .test
TEST_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh
# CL_SAN_SUFFIX: -san in make check-sanitize (tests/sanitize.mk), whose
# tests run the sanitized cudalens-report-san and friends.  CL_SANITIZER_INC:
# where configure found sanitizer.h, empty when it built no footprint
# collector (CL_SANITIZER_RESULT says why; tests/footprint).  Suppression
# files of the caller's CUDALENS_SUPPRESSIONS must not change reports.
CL_SAN_SUFFIX =
AM_TESTS_ENVIRONMENT = CL_TOP_BUILDDIR='$(abs_top_builddir)'; \
	CL_TOP_SRCDIR='$(abs_top_srcdir)'; CL_SAN_SUFFIX='$(CL_SAN_SUFFIX)'; \
	CL_SANITIZER_INC='$(SANITIZER_INC)'; CL_SANITIZER_RESULT='$(SANITIZER_RESULT)'; \
	CL_CUDA_HOME='$(CUDA_HOME)'; \
	export CL_TOP_BUILDDIR CL_TOP_SRCDIR CL_SAN_SUFFIX CL_SANITIZER_INC \
	CL_SANITIZER_RESULT CL_CUDA_HOME; \
	unset CUDALENS_SUPPRESSIONS;
EXTRA_DIST += tests/run-test.sh tests/lib.sh tests/marks.sh
# the test scripts of the folders, listed by tests/collect.sh (tests.mk,
# included by Makefile.am); collected.test checks the list is up to date
TESTS += $(COLLECTED_TESTS)
EXTRA_DIST += tests/collect.sh tests/tests.mk $(COLLECTED_TESTS)

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
# issue 23's footprint probe (tests/gpu/footprint/README.md): built by its
# build.sh, run on a GPU by probe.sh; selftest.sh checks its host side, and
# collector_selftest.sh the collector's, against a test double, without a
# GPU (both run by tests/footprint/collector.test); fp_check.sh is the
# collector's GPU check
EXTRA_DIST += tests/gpu/footprint/README.md tests/gpu/footprint/build.sh \
	tests/gpu/footprint/probe.sh tests/gpu/footprint/selftest.sh \
	tests/gpu/footprint/collector_selftest.sh tests/gpu/footprint/fp_check.sh \
	tests/gpu/footprint/fp_races.cu \
	tests/gpu/footprint/expect.sh tests/gpu/footprint/probe.c \
	tests/gpu/footprint/probe.h tests/gpu/footprint/probe_cupti.c \
	tests/gpu/footprint/fp_test.cu tests/gpu/footprint/double/fake_app.c \
	tests/gpu/footprint/double/fake_sanitizer.c

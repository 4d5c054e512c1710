# tests/footprint/local.mk - the footprint collector (footprint/local.mk)
# against the test double of the Sanitizer library
# (tests/gpu/footprint/double), without a GPU: collector.test runs
# tests/gpu/footprint/collector_selftest.sh on the collector just built, and
# the probe's selftest.sh; it skips, saying why, where configure built no
# collector (no sanitizer.h or no nvcc: CL_SANITIZER_RESULT).
# Include from Makefile.am:  include tests/footprint/local.mk
# FOOTPRINT_TESTS: the folder's test scripts, collected in tests/tests.mk
TESTS += $(FOOTPRINT_TESTS)
EXTRA_DIST += $(FOOTPRINT_TESTS)

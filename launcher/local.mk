# launcher/local.mk - the `cudalens` launcher (run a program with the shim
# preloaded) and its end-to-end test (its unit test: tests/unit/launcher).
# Needs `TEST_EXTENSIONS =` defined before it.
bin_PROGRAMS += cudalens
# common/outpath.c: the -o PATTERN rule, the same code as the shim's
cudalens_SOURCES = launcher/launcher.c launcher/launcher.h common/outpath.c \
	include/cudalens/outpath.h
cudalens_CPPFLAGS = $(AM_CPPFLAGS) -DCL_SHIM_PATH='"$(libdir)/libcudalens.so"' \
	-DCL_REPORT_PATH='"$(bindir)/cudalens-report"'

TEST_EXTENSIONS += .ltest
LTEST_LOG_COMPILER = $(TEST_LOG_COMPILER)
TESTS += launcher/launcher.ltest
EXTRA_DIST += launcher/launcher.ltest

# launcher/local.mk - the `cudalens` launcher (run a program with the shim
# preloaded) and its tests.  Needs `TEST_EXTENSIONS =` defined before it.
bin_PROGRAMS += cudalens
# common/outpath.c: the -o PATTERN rule, the same code as the shim's
cudalens_SOURCES = launcher/launcher.c launcher/launcher.h common/outpath.c \
	include/cudalens/outpath.h
cudalens_CPPFLAGS = $(AM_CPPFLAGS) -DCL_SHIM_PATH='"$(libdir)/libcudalens.so"' \
	-DCL_REPORT_PATH='"$(bindir)/cudalens-report"'

check_PROGRAMS += launcher/launcher_test
launcher_launcher_test_SOURCES = launcher/launcher_test.c launcher/launcher.c \
	launcher/launcher.h common/outpath.c include/cudalens/outpath.h
launcher_launcher_test_CPPFLAGS = $(AM_CPPFLAGS) -DCL_LAUNCHER_NO_MAIN \
	-DCL_SHIM_PATH='"$(libdir)/libcudalens.so"' \
	-DCL_REPORT_PATH='"$(bindir)/cudalens-report"'

TEST_EXTENSIONS += .ltest
LTEST_LOG_COMPILER = $(TEST_LOG_COMPILER)
TESTS += launcher/launcher_test launcher/launcher.ltest
EXTRA_DIST += launcher/launcher.ltest

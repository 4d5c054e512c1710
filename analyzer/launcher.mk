# analyzer/launcher.mk - the `cudalens` launcher (run a program with the shim
# preloaded) and its tests.  Needs `TEST_EXTENSIONS =` defined before it.
bin_PROGRAMS += cudalens
# common/outpath.c: the -o PATTERN rule, the same code as the shim's
cudalens_SOURCES = analyzer/launcher.c analyzer/launcher.h common/outpath.c \
	include/cudalens/outpath.h
cudalens_CPPFLAGS = $(AM_CPPFLAGS) -DCL_SHIM_PATH='"$(libdir)/libcudalens.so"' \
	-DCL_REPORT_PATH='"$(bindir)/cudalens-report"'

check_PROGRAMS += analyzer/launcher_test
analyzer_launcher_test_SOURCES = analyzer/launcher_test.c analyzer/launcher.c \
	analyzer/launcher.h common/outpath.c include/cudalens/outpath.h
analyzer_launcher_test_CPPFLAGS = $(AM_CPPFLAGS) -DCL_LAUNCHER_NO_MAIN \
	-DCL_SHIM_PATH='"$(libdir)/libcudalens.so"' \
	-DCL_REPORT_PATH='"$(bindir)/cudalens-report"'

TEST_EXTENSIONS += .ltest
LTEST_LOG_COMPILER = $(SHELL)
TESTS += analyzer/launcher_test analyzer/launcher.ltest
EXTRA_DIST += analyzer/launcher.ltest

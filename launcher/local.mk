# launcher/local.mk - the `cudalens` launcher (run a program with the shim
# preloaded) and its end-to-end test (its unit test: tests/unit/launcher).
bin_PROGRAMS += cudalens
# common/outpath.c: the -o PATTERN rule, the same code as the shim's
cudalens_SOURCES = launcher/launcher.c launcher/launcher.h common/outpath.c \
	include/cudalens/outpath.h
cudalens_CPPFLAGS = $(AM_CPPFLAGS) -DCL_SHIM_PATH='"$(libdir)/libcudalens.so"' \
	-DCL_REPORT_PATH='"$(bindir)/cudalens-report"'

TESTS += launcher/launcher.test
EXTRA_DIST += launcher/launcher.test

# tests/python/local.mk - Python call sites (shim/pyframes.c,
# calls.pystack, callsite_resolve_call): the frame walker driven from Python
# through a ctypes-loaded probe, and Python programs calling the simulated
# CUDA runtime through ctypes under the shim (the resolver's Python rules:
# tests/unit/analyzer/test_pysite.c).  The .test scripts skip (77) when no python3 (3.11+) is found;
# CL_PYTHONS="python3.12 /usr/bin/python3" picks the interpreters to try.
# Include after tests/sim/local.mk (which sets check_LTLIBRARIES with =)
# and tests/local.mk (the .test LOG_COMPILER).

# the probe: cl_pystack_capture() callable from Python through ctypes
check_LTLIBRARIES += tests/python/libpyprobe.la
tests_python_libpyprobe_la_SOURCES = tests/python/pyprobe.c
tests_python_libpyprobe_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
tests_python_libpyprobe_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
tests_python_libpyprobe_la_LDFLAGS = -shared -module -avoid-version \
	-no-undefined -rpath $(abs_builddir)/tests/python
tests_python_libpyprobe_la_LIBADD = libclshim.la libclsqlite.la $(SQLITE_LIBS) -ldl -lpthread

check_PROGRAMS += tests/python/pysites
tests_python_pysites_SOURCES = tests/python/pysites.c
tests_python_pysites_CPPFLAGS = $(AM_CPPFLAGS) $(ANALYZER_CPPFLAGS) $(SQLITE_CFLAGS)
tests_python_pysites_LDADD = libclreport.la

# the folder's test scripts: PYTHON_SCRIPT_TESTS, collected in tests/tests.mk
TESTS += $(PYTHON_SCRIPT_TESTS)
EXTRA_DIST += $(PYTHON_SCRIPT_TESTS) \
	tests/python/pyframes.py tests/python/pycalls.py \
	tests/python/pylib.sh

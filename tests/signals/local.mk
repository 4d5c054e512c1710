# tests/signals/local.mk - the shim never changes what a program sees or
# does with signals (issue 13): tests/signals/sigprobe, a program that loads
# the (simulated) CUDA runtime with dlopen, runs natively and under the shim
# with the same output and exit status; Python's KeyboardInterrupt; the
# flush at a fatal signal with a long CUDALENS_FLUSH_MS.
check_PROGRAMS += tests/signals/sigprobe
tests_signals_sigprobe_SOURCES = tests/signals/sigprobe.c
tests_signals_sigprobe_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_signals_sigprobe_LDADD = $(SQLITE_LIBS) -ldl -lpthread

# a library whose constructor installs fatal-signal handlers before the
# shim starts (a crash reporter)
check_LTLIBRARIES += tests/signals/libearly.la
tests_signals_libearly_la_SOURCES = tests/signals/earlylib.c
tests_signals_libearly_la_LDFLAGS = -shared -module -avoid-version -no-undefined \
	-rpath $(abs_builddir)/tests/signals

# SIGNALS_TESTS: the folder's test scripts, collected in tests/tests.mk
TESTS += $(SIGNALS_TESTS)
EXTRA_DIST += $(SIGNALS_TESTS) tests/signals/siglib.sh

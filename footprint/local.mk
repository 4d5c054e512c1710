# footprint/local.mk - the footprint collector of issue 23 (cudalens run
# --footprint; cudalens-db(5), FOOTPRINT FILES).  Its host side, which knows
# nothing of the Sanitizer API (fp_summary.c: the sample, the summary, the
# file), is a convenience library the unit tests link; the library itself,
# libcudalens-footprint.so (collector.c, with the device patches of
# patches.cu), needs NVIDIA's sanitizer.h and nvcc and is built by
# footprint/build.sh.
noinst_LTLIBRARIES += libclfootprint.la
libclfootprint_la_SOURCES = footprint/fp_summary.c footprint/fp_summary.h \
	footprint/fp_buffer.h
libclfootprint_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/shim
libclfootprint_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)
EXTRA_DIST += footprint/collector.c footprint/patches.cu footprint/build.sh

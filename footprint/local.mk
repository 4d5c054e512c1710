# footprint/local.mk - the footprint collector of issue 23 (cudalens run
# --footprint; cudalens-db(5), FOOTPRINT FILES), and the one place that says
# how it is built.  Its host side, which knows nothing of the Sanitizer API
# (fp_summary.c: the sample, the summary, the file), is a convenience
# library that the unit tests link and the collector takes in.  The
# collector itself, libcudalens-footprint.so (collector.c), and its device
# patches, cudalens-footprint-patches.fatbin (patches.cu), need NVIDIA's
# sanitizer.h and nvcc: they are built where configure found both
# (--with-sanitizer=DIR; HAVE_SANITIZER_H), installed in $(libdir) beside
# the shim and libcudalens-sqlite.so, where the launcher looks for the
# collector and the collector for the other two.
noinst_LTLIBRARIES += libclfootprint.la
libclfootprint_la_SOURCES = footprint/fp_summary.c footprint/fp_summary.h \
	footprint/fp_buffer.h
libclfootprint_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/shim
libclfootprint_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)
EXTRA_DIST += footprint/collector.c footprint/patches.cu

# the GPU architectures of the patches' SASS, one image each, from Turing
# (the oldest CUDA 13 builds for) to Blackwell; the Sanitizer loads the
# one of the GPU (make FOOTPRINT_ARCHS=sm_90 for one)
FOOTPRINT_ARCHS = sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120
CLEANFILES += cudalens-footprint-patches.fatbin

if HAVE_SANITIZER_H
# the collector: preloaded like the shim, everything but its constructor
# and destructor hidden; the Sanitizer library is loaded at run time
# (CUDALENS_SANITIZER_LIB), SQLite from libcudalens-sqlite.so beside it
lib_LTLIBRARIES += libcudalens-footprint.la
libcudalens_footprint_la_SOURCES = footprint/collector.c common/format.c \
	common/tables.c
libcudalens_footprint_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/shim \
	-I$(top_srcdir)/footprint -I$(SANITIZER_INC)
libcudalens_footprint_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)
libcudalens_footprint_la_LDFLAGS = -module -avoid-version -shared -no-undefined
libcudalens_footprint_la_LIBADD = libclfootprint.la -ldl -lpthread

# the patches: device functions compiled as a tools patch (SASS for
# FOOTPRINT_ARCHS), which the collector loads from its own folder
# (CUDALENS_FOOTPRINT_PATCHES overrides): installed beside it, and in the
# build tree copied beside .libs/libcudalens-footprint.so, the collector
# that the build tree's launcher finds (beside .libs/libcudalens.so)
footprintdir = $(libdir)
footprint_DATA = cudalens-footprint-patches.fatbin
noinst_DATA = .libs/cudalens-footprint-patches.fatbin
cudalens-footprint-patches.fatbin: $(srcdir)/footprint/patches.cu \
		$(srcdir)/footprint/fp_buffer.h
	$(AM_V_GEN)$(NVCC) --fatbin --keep-device-functions \
	  -Xptxas --compile-as-tools-patch \
	  $(foreach a,$(FOOTPRINT_ARCHS),-gencode arch=compute_$(a:sm_%=%),code=$(a)) \
	  -I$(SANITIZER_INC) -I$(srcdir)/footprint -o $@ $(srcdir)/footprint/patches.cu
.libs/cudalens-footprint-patches.fatbin: cudalens-footprint-patches.fatbin
	$(AM_V_at)$(MKDIR_P) .libs && cp -p cudalens-footprint-patches.fatbin $@
endif

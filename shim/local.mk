# shim/local.mk - libcudalens.so, the recorder preloaded into CUDA programs.
# Everything but the life cycle lives in a convenience library that the unit
# tests link too.
noinst_LTLIBRARIES += libclshim.la
libclshim_la_SOURCES = \
	shim/shim.h shim/cupti.h shim/writer_db.h shim/selftime.h \
	shim/config.c shim/log.c \
	shim/cupti_bind.c shim/cudaload.c shim/capture.c shim/decode.c shim/activity.c \
	shim/kparams.c shim/graphs.c shim/memquery.c shim/driver.c shim/devices.c \
	shim/stack.c shim/unwind.c shim/cl_unwind.h shim/modules.c shim/pyframes.c \
	shim/ring.c shim/strings.c shim/writer.c shim/writer_db.c shim/dbfd.c \
	shim/outpath.c shim/exitwrap.c shim/signals.c shim/sigwrap.c shim/hostguard.c shim/hostfn.c \
	shim/threads.c shim/syscalls.c shim/selftime.c shim/manifest.c shim/dlreal.c \
	shim/nccl.c shim/mathlazy.c \
	common/format.c common/tables.c common/semantics.c common/outpath.c common/buildid.c \
	analyzer/sites/mangle_const.c
libclshim_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)

lib_LTLIBRARIES += libcudalens.la
libcudalens_la_SOURCES = shim/shim_init.c shim/dlhook.c shim/nvtx.c \
	shim/nccl_load.c shim/gotpatch.c
libcudalens_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libcudalens_la_LDFLAGS = -module -avoid-version -shared -no-undefined \
	$(SHIM_SQLITE_LDFLAGS)
libcudalens_la_LIBADD = libclshim.la $(SHIM_SQLITE_LIBS) -ldl -lpthread
EXTRA_DIST += shim/sqlite_local.map

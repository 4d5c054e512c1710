# shim/local.mk - libcudalens.so, the recorder preloaded into CUDA programs,
# and libcudalens-sqlite.so, the SQLite it loads when a process starts to
# record (shim/sqlite_api.h).  Everything but the life cycle lives in a
# convenience library that the unit tests link too, with libclsqlite.la.
noinst_LTLIBRARIES += libclshim.la
libclshim_la_SOURCES = \
	shim/shim.h shim/cupti.h shim/writer_db.h shim/selftime.h shim/sqlite_api.h \
	shim/config.c shim/log.c \
	shim/cupti_bind.c shim/cudaload.c shim/capture.c shim/decode.c shim/activity.c \
	shim/kparams.c shim/graphs.c shim/memquery.c shim/driver.c shim/devices.c \
	shim/stack.c shim/unwind.c shim/cl_unwind.h shim/modules.c shim/pyframes.c \
	shim/ring.c shim/strings.c shim/writer.c shim/writer_db.c shim/dbfd.c \
	shim/outpath.c shim/exitwrap.c shim/signals.c shim/sigwrap.c shim/hostguard.c shim/hostfn.c \
	shim/threads.c shim/syscalls.c shim/selftime.c shim/manifest.c shim/dlreal.c \
	shim/nccl.c \
	common/format.c common/tables.c common/semantics.c common/outpath.c common/buildid.c \
	analyzer/sites/mangle_const.c
libclshim_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)

lib_LTLIBRARIES += libcudalens.la
libcudalens_la_SOURCES = shim/shim_init.c shim/dlhook.c shim/nvtx.c \
	shim/nccl_load.c shim/gotpatch.c shim/sqlite_load.c
libcudalens_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)
libcudalens_la_LDFLAGS = -module -avoid-version -shared -no-undefined
libcudalens_la_LIBADD = libclshim.la -ldl -lpthread

lib_LTLIBRARIES += libcudalens-sqlite.la
libcudalens_sqlite_la_SOURCES = shim/sqlite_lib.c shim/sqlite_api.h
libcudalens_sqlite_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)
libcudalens_sqlite_la_LDFLAGS = -module -avoid-version -shared -no-undefined \
	$(SHIM_SQLITE_LDFLAGS)
libcudalens_sqlite_la_LIBADD = $(SHIM_SQLITE_LIBS)

# the same table and its own cl_sqlite_load for programs that link the
# shim's pieces (libclshim.la) and SQLite themselves: the unit tests
noinst_LTLIBRARIES += libclsqlite.la
libclsqlite_la_SOURCES = shim/sqlite_lib.c shim/sqlite_api.h
libclsqlite_la_CPPFLAGS = $(AM_CPPFLAGS) -DCL_SQLITE_LINKED
libclsqlite_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)
EXTRA_DIST += shim/sqlite_local.map

# shim/local.mk - libcudalens.so, the recorder preloaded into CUDA programs,
# and libcudalens-sqlite.so, the SQLite (and the schema's tables,
# common/tables.c) it loads when a process starts to record
# (shim/sqlite_api.h).  Everything but the life cycle lives in a
# convenience library that the unit tests link too, with libclsqlite.la.
# Each module's header follows its .c.
noinst_LTLIBRARIES += libclshim.la
libclshim_la_SOURCES = \
	shim/shim.h shim/cupti.h shim/cl_unwind.h shim/config.c shim/log.c \
	shim/cupti_bind.c shim/cupti_bind.h shim/cudaload.c shim/cudaload.h \
	shim/capture.c shim/capture.h shim/benchphase.c shim/decode.c \
	shim/cupti_activity.c \
	shim/cupti_activity.h shim/kparams.c shim/kparams.h shim/hostcode.c \
	shim/hostcode.h shim/graphs.c \
	shim/graphs.h shim/memquery.c shim/memquery.h shim/driver.c \
	shim/driver.h shim/devices.c shim/devices.h shim/stack.c shim/stack.h \
	shim/unwind.c shim/modules.c shim/modules.h shim/objects.c \
	shim/objects.h shim/pyframes.c \
	shim/pyframes.h shim/ring.c shim/ring.h shim/strings.c shim/writer.c \
	shim/writer.h shim/writer_db.c shim/writer_db.h shim/dbfd.c \
	shim/outfile.c shim/outfile.h shim/exitwrap.c shim/signals.c \
	shim/signals.h shim/sigwrap.c shim/sigwrap.h shim/hostguard.c \
	shim/hostguard.h shim/protmap.c shim/protmap.h shim/hostfn.c shim/hostfn.h shim/threads.c \
	shim/threads.h shim/threadmem.c shim/threadmem.h shim/syscalls.c \
	shim/selftime.c shim/selftime.h shim/ablate.h shim/sanitizers.c \
	shim/manifest.c shim/manifest.h shim/dlreal.c shim/nccl.c shim/nccl.h \
	shim/sqlite_api.h \
	common/format.c common/semantics.c common/outpath.c \
	common/buildid.c common/mangle_const.c
# The shim's thread-local variables are reached through TLS descriptors
# (SHIM_TLS_CFLAGS, configure.ac: -mtls-dialect=gnu2 on x86-64): for a
# library in the static TLS block (loaded at start-up, as LD_PRELOAD
# does) a call that returns the offset, instead of __tls_get_addr at each
# function's first use (some 30 calls a kernel launch: bench/README.md).
# The initial-exec model would save about 100 instructions a launch more,
# but a library built with it cannot be loaded by dlopen once its TLS no
# longer fits the static block's reserve (tests/python's probe, loaded by
# ctypes, could not).  A library loaded by dlopen gets dynamic TLS, whose
# descriptor path does not preserve the vector registers before glibc
# 2.40 (glibc bug 31372): the shim is meant to be preloaded, where that
# path is never taken; dlopen it on an older glibc only for tests.
libclshim_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS) \
	$(SHIM_TLS_CFLAGS)

lib_LTLIBRARIES += libcudalens.la
libcudalens_la_SOURCES = \
	shim/shim_init.c shim/shim_init.h shim/dlhook.c shim/nvtx.c \
	shim/nvtx.h shim/nccl_load.c shim/nccl_load.h shim/gotpatch.c \
	shim/gotpatch.h shim/sqlite_load.c
libcudalens_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS) \
	$(SHIM_TLS_CFLAGS)
# SHIM_FINI_LDFLAGS: DT_FINI names an empty function beside the start-up
# code, not _fini at the end of .text (shim_init.c, cl_dt_fini;
# configure.ac)
libcudalens_la_LDFLAGS = -module -avoid-version -shared -no-undefined \
	$(SHIM_FINI_LDFLAGS)
libcudalens_la_LIBADD = libclshim.la -ldl -lpthread

lib_LTLIBRARIES += libcudalens-sqlite.la
libcudalens_sqlite_la_SOURCES = shim/sqlite_lib.c shim/sqlite_api.h \
	common/tables.c
libcudalens_sqlite_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)
libcudalens_sqlite_la_LDFLAGS = -module -avoid-version -shared -no-undefined \
	$(SHIM_SQLITE_LDFLAGS)
libcudalens_sqlite_la_LIBADD = $(SHIM_SQLITE_LIBS)

# the same table and its own cl_sqlite_load for programs that link the
# shim's pieces (libclshim.la) and SQLite themselves: the unit tests
noinst_LTLIBRARIES += libclsqlite.la
libclsqlite_la_SOURCES = shim/sqlite_lib.c shim/sqlite_api.h common/tables.c
libclsqlite_la_CPPFLAGS = $(AM_CPPFLAGS) -DCL_SQLITE_LINKED
libclsqlite_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)
EXTRA_DIST += shim/sqlite_local.map

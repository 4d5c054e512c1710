# shim/local.mk - libcudalens.so, the recorder preloaded into CUDA programs.
lib_LTLIBRARIES += libcudalens.la
libcudalens_la_SOURCES = shim/shim_init.c
libcudalens_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(SQLITE_CFLAGS)
libcudalens_la_LDFLAGS = -module -avoid-version -shared -no-undefined
libcudalens_la_LIBADD = libclformat.la $(SQLITE_LIBS) -ldl -lpthread

# tests/semantics/local.mk - the conformance catalogue of the ordering
# table (include/cudalens/ops.def): for rules of the table, a program with
# the bug (its line marked `// expect: KIND`) and its correct twin (no
# mark), built like the race catalogue and checked with the same script
# (tests/races/check.sh): the race findings must be exactly the marks.
# Each program names the rules it exercises (`// rule: ID...`);
# coverage.test checks that every rule of the table has a correct program
# in this catalogue, tests/races or tests/hostsync, and prints the table.
# Include from Makefile.am:  include tests/semantics/local.mk

SEM_NAMES = \
	memset_managed_ok memset_pinned_ok memset_sync_ok \
	pageable_source_reuse_ok pageable_staged pageable_staged_ok \
	pageable_async_h2d pageable_async_h2d_ok pinned_htod_sync_ok \
	dtod_sync dtod_sync_ok htoh_ok peer_sync_ok event_query_ok \
	prefetch_ok ptds_legacy_ok threads_two_writers threads_join_ok \
	threads_handoff hostfn_handoff hostfn_wrong_stream
# programs that call the driver API too (`// link: -lcuda`)
SEM_DRV_NAMES = ctx_sync_ok hostfn_xla
# programs linked with tests/semantics/lib/cudnn_cltest.cu, a stand-in for
# a closed NVIDIA library (libcudnn_cltest.so, found through $ORIGIN)
SEM_LIB_NAMES = library_stream library_user_stream
# SEM_TESTS: the folder's test scripts, collected in tests/tests.mk
TESTS += $(SEM_TESTS)
EXTRA_DIST += $(SEM_TESTS) $(SEM_NAMES:%=tests/semantics/%.cu) \
	$(SEM_DRV_NAMES:%=tests/semantics/%.cu) \
	$(SEM_LIB_NAMES:%=tests/semantics/%.cu) tests/semantics/cltest.h \
	tests/semantics/lib/cudnn_cltest.cu

if HAVE_NVCC
SEM_PROGS = $(SEM_NAMES:%=tests/semantics/%)
check_DATA += $(SEM_PROGS)
CLEANFILES += $(SEM_PROGS)

$(SEM_PROGS): tests/semantics/%: $(srcdir)/tests/semantics/%.cu $(srcdir)/tests/races/races.h $(srcdir)/tests/apps/common.h
	@$(MKDIR_P) tests/semantics
	$(AM_V_GEN)$(NVCC) $(RACE_NVCCFLAGS) -cudart shared -I$(srcdir)/tests/races \
		-I$(srcdir)/tests/apps $< -o $@ -lpthread

SEM_DRV_PROGS = $(SEM_DRV_NAMES:%=tests/semantics/%)
check_DATA += $(SEM_DRV_PROGS)
CLEANFILES += $(SEM_DRV_PROGS)
$(SEM_DRV_PROGS): tests/semantics/%: $(srcdir)/tests/semantics/%.cu $(srcdir)/tests/races/races.h $(srcdir)/tests/apps/common.h
	@$(MKDIR_P) tests/semantics
	$(AM_V_GEN)$(NVCC) $(RACE_NVCCFLAGS) -cudart shared -I$(srcdir)/tests/races \
		-I$(srcdir)/tests/apps $< -o $@ -lpthread \
		-L$(CUDA_HOME)/lib64/stubs -lcuda

SEM_LIB = tests/semantics/libcudnn_cltest.so
SEM_LIB_PROGS = $(SEM_LIB_NAMES:%=tests/semantics/%)
check_DATA += $(SEM_LIB) $(SEM_LIB_PROGS)
CLEANFILES += $(SEM_LIB) $(SEM_LIB_PROGS)
$(SEM_LIB): $(srcdir)/tests/semantics/lib/cudnn_cltest.cu
	@$(MKDIR_P) tests/semantics
	$(AM_V_GEN)$(NVCC) $(RACE_NVCCFLAGS) -cudart shared -shared \
		-Xcompiler -fPIC $< -o $@
$(SEM_LIB_PROGS): tests/semantics/%: $(srcdir)/tests/semantics/%.cu $(SEM_LIB) $(srcdir)/tests/semantics/cltest.h $(srcdir)/tests/races/races.h $(srcdir)/tests/apps/common.h
	$(AM_V_GEN)$(NVCC) $(RACE_NVCCFLAGS) -cudart shared -I$(srcdir)/tests/races \
		-I$(srcdir)/tests/apps $< -o $@ -Ltests/semantics -lcudnn_cltest \
		-Xlinker -rpath,'$$ORIGIN' -lpthread
endif

# tests/nccl/local.mk - NCCL under the shim, without GPUs: a TEST DOUBLE of
# NCCL (fake_nccl.c -> tests/nccl/lib/libnccl.so.2, over the simulated CUDA
# of tests/sim; never installed) and small programs that call NCCL: races
# between a collective and a kernel (`// expect: stream-race`) and their
# twins, communicators of two processes that disagree
# (`// expect: collective-mismatch`) and their twin, NCCL loaded by dlopen,
# a process without NCCL.  The programs include <nccl.h>: the double's here,
# the real one for the GPU (tests/gpu/nccl.sh).

check_LTLIBRARIES += tests/nccl/libnccl.la
tests_nccl_libnccl_la_SOURCES = tests/nccl/fake_nccl.c tests/nccl/nccl.h
tests_nccl_libnccl_la_CFLAGS = $(SIM_CFLAGS) -I$(srcdir)/tests/nccl
tests_nccl_libnccl_la_LDFLAGS = -shared -rpath $(abs_builddir)/tests/nccl/lib \
	-no-undefined -version-info 2:0:0
tests_nccl_libnccl_la_LIBADD = tests/sim/libcudart.la -ldl
EXTRA_DIST += tests/nccl/double/fake_nccl_kernels.cu

NCCL_LIBDIR = tests/nccl/lib
$(NCCL_LIBDIR)/.stamp: tests/nccl/libnccl.la
	$(AM_V_GEN)$(MKDIR_P) $(NCCL_LIBDIR) && \
	cp -fL tests/nccl/.libs/libnccl.so.2 $(NCCL_LIBDIR)/libnccl.so.2 && \
	touch $@
check_DATA += $(NCCL_LIBDIR)/.stamp
clean-local: clean-nccl-lib
clean-nccl-lib:
	-rm -rf $(NCCL_LIBDIR)
.PHONY: clean-nccl-lib

# single-process programs checked against their marks (tests/races/check.sh)
NCCL_RACE_NAMES = allreduce_race allreduce_event_ok group_event_early \
	free_while_sending dlopen_nccl no_nccl own_kernels
# two-process programs (tests/nccl/ranks.sh)
NCCL_RANK_NAMES = ranks_mismatch ranks_ok ranks_short
# NCCL_TESTS: the folder's test scripts, collected in tests/tests.mk
EXTRA_DIST += $(NCCL_TESTS) tests/nccl/check.sh tests/nccl/nccl_test.h \
	$(NCCL_RACE_NAMES:%=tests/nccl/%.cu) $(NCCL_RANK_NAMES:%=tests/nccl/%.cu) \
	tests/nccl/nccl_plugin.cpp

if HAVE_NVCC
# the double's own kernel, launched as NCCL launches its own
# (double/fake_nccl_kernels.cu: apart from the catalogue's programs,
# tests/nccl/*.cu; embedded in the double as a fatbin)
tests_nccl_libnccl_la_CPPFLAGS = -DFAKE_NCCL_OWN_KERNEL -Itests/nccl
$(tests_nccl_libnccl_la_OBJECTS): tests/nccl/fake_nccl_kernels_fatbin.h
tests/nccl/fake_nccl_kernels.fatbin: $(srcdir)/tests/nccl/double/fake_nccl_kernels.cu
	@$(MKDIR_P) tests/nccl
	$(AM_V_GEN)$(NVCC) -fatbin -arch=sm_90 --no-compress $< -o $@
tests/nccl/fake_nccl_kernels_fatbin.h: tests/nccl/fake_nccl_kernels.fatbin
	$(AM_V_GEN)$(CUDA_HOME)/bin/bin2c --name fake_nccl_kernels_fatbin --type longlong --const $< > $@
CLEANFILES += tests/nccl/fake_nccl_kernels.fatbin tests/nccl/fake_nccl_kernels_fatbin.h
TESTS += $(NCCL_TESTS)
NCCL_PROGS = $(NCCL_RACE_NAMES:%=tests/nccl/%) $(NCCL_RANK_NAMES:%=tests/nccl/%)
check_DATA += $(NCCL_PROGS) tests/nccl/libnccl_plugin.so tests/nccl/now/allreduce_race
CLEANFILES += $(NCCL_PROGS) tests/nccl/libnccl_plugin.so tests/nccl/now/allreduce_race
NCCL_NVCCFLAGS = -g -lineinfo -arch=sm_90 --no-compress -cudart shared \
	-I$(srcdir)/tests/nccl -I$(srcdir)/tests/races -I$(srcdir)/tests/apps

$(NCCL_PROGS) tests/nccl/libnccl_plugin.so: $(srcdir)/tests/nccl/nccl_test.h \
	$(srcdir)/tests/nccl/nccl.h $(srcdir)/tests/races/races.h \
	$(srcdir)/tests/apps/common.h $(NCCL_LIBDIR)/.stamp
tests/nccl/no_nccl: $(srcdir)/tests/nccl/no_nccl.cu
	$(AM_V_GEN)$(NVCC) $(NCCL_NVCCFLAGS) $< -o $@ -ldl
tests/nccl/dlopen_nccl: $(srcdir)/tests/nccl/dlopen_nccl.cu
	$(AM_V_GEN)$(NVCC) $(NCCL_NVCCFLAGS) $< -o $@ -ldl
tests/nccl/libnccl_plugin.so: $(srcdir)/tests/nccl/nccl_plugin.cpp
	$(AM_V_GEN)$(NVCC) $(NCCL_NVCCFLAGS) -x cu -shared -Xcompiler -fPIC $< -o $@ \
		-L$(NCCL_LIBDIR) -Xlinker -l:libnccl.so.2
$(filter-out tests/nccl/no_nccl tests/nccl/dlopen_nccl,$(NCCL_PROGS)): tests/nccl/%: $(srcdir)/tests/nccl/%.cu
	@$(MKDIR_P) tests/nccl
	$(AM_V_GEN)$(NVCC) $(NCCL_NVCCFLAGS) $< -o $@ -L$(NCCL_LIBDIR) -Xlinker -l:libnccl.so.2
# the same program with full RELRO (-z now): its GOT is read-only when the
# shim patches it (bind_now.test)
tests/nccl/now/allreduce_race: $(srcdir)/tests/nccl/allreduce_race.cu
	@$(MKDIR_P) tests/nccl/now
	$(AM_V_GEN)$(NVCC) $(NCCL_NVCCFLAGS) $< -o $@ -L$(NCCL_LIBDIR) -Xlinker -l:libnccl.so.2 \
		-Xlinker -z,relro,-z,now
endif
.PHONY: nccl-tests
nccl-tests: $(NCCL_PROGS)

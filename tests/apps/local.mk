# tests/apps/local.mk - the sample CUDA apps (plain CUDA programs that also
# run on a real GPU), built with $(NVCC) and the shared cudart for the
# simulated CUDA of tests/sim (see tests/sim/local.mk).  `make check` (or
# `make apps`) builds them into $(builddir)/tests/apps; tests/apps/build.sh
# builds them standalone, shared or static cudart.  Device code stays
# uncompressed (--no-compress): the sim reads parameter layouts from it.

SIM_APP_NAMES = basic streams pinned kernel_args multidev managed_async threads fork_exec \
	pipeline
SIM_APP_FILES = $(SIM_APP_NAMES:%=tests/apps/%.cu) tests/apps/common.h \
	tests/apps/driver_api.cpp tests/apps/driver_kernels.cu tests/apps/build.sh
EXTRA_DIST += $(SIM_APP_FILES)

if HAVE_NVCC
SIM_APPS = $(SIM_APP_NAMES:%=tests/apps/%) tests/apps/driver_api
APP_NVCCFLAGS = -g -lineinfo -arch=sm_90 --no-compress
check_DATA += $(SIM_APPS)
CLEANFILES += $(SIM_APPS) tests/apps/driver_kernels.fatbin tests/apps/driver_kernels_fatbin.h

$(SIM_APP_NAMES:%=tests/apps/%): tests/apps/%: $(srcdir)/tests/apps/%.cu $(srcdir)/tests/apps/common.h
	@$(MKDIR_P) tests/apps
	$(AM_V_GEN)$(NVCC) $(APP_NVCCFLAGS) -cudart shared -I$(srcdir)/tests/apps $< -o $@ -lpthread

tests/apps/driver_kernels.fatbin: $(srcdir)/tests/apps/driver_kernels.cu
	@$(MKDIR_P) tests/apps
	$(AM_V_GEN)$(NVCC) -fatbin -arch=sm_90 --no-compress $< -o $@

tests/apps/driver_kernels_fatbin.h: tests/apps/driver_kernels.fatbin
	$(AM_V_GEN)$(CUDA_HOME)/bin/bin2c --name driver_kernels_fatbin --type longlong --const $< > $@

tests/apps/driver_api: $(srcdir)/tests/apps/driver_api.cpp tests/apps/driver_kernels_fatbin.h
	$(AM_V_GEN)$(NVCC) -g -arch=sm_90 -cudart none -Itests/apps $< -o $@ \
		-L$(CUDA_HOME)/lib64/stubs -lcuda
endif
.PHONY: apps
apps: $(SIM_APPS)

# `make demo`: the README's Quick start job (tests/demo.sh)
EXTRA_DIST += tests/demo.sh
.PHONY: demo
demo: all sim tests/apps/pipeline
	@sed 's|@CUDA_HOME@|$(CUDA_HOME)|' $(srcdir)/tests/demo.sh > tests/demo.run
	@$(SHELL) tests/demo.run $(abs_builddir)
CLEANFILES += tests/demo.run

# the demo app built optimized: launch sites through inlined kernel stubs
if HAVE_NVCC
check_DATA += tests/apps/pipeline_O2
CLEANFILES += tests/apps/pipeline_O2
tests/apps/pipeline_O2: $(srcdir)/tests/apps/pipeline.cu $(srcdir)/tests/apps/common.h
	@$(MKDIR_P) tests/apps
	$(AM_V_GEN)$(NVCC) -O2 $(APP_NVCCFLAGS) -cudart shared -I$(srcdir)/tests/apps $< -o $@
endif

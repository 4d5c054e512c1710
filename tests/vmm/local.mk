# tests/vmm/local.mk - the catalogue of mapped memory and access rights:
# device memory mapped with cuMemAddressReserve/cuMemCreate/cuMemMap/
# cuMemSetAccess (as PyTorch's expandable segments and NCCL map it) and
# memory that other devices reach through a pool's access descriptors or a
# mapping's, each bug (its line marked `// expect: KIND`) with its correct
# twin, built like the race catalogue (driver API too) and checked with
# tests/races/check.sh: the race and cross-device-access findings must be
# exactly the marks.  Under the simulated runtime (2 devices); on the GPU
# through tests/gpu/vmm.sh.
# Include from Makefile.am:  include tests/vmm/local.mk

VMM_NAMES = vmm_race vmm_race_ok vmm_span_race vmm_span_race_ok \
	pool_peer pool_peer_ok vmm_peer vmm_peer_ok
# VMM_TESTS: the folder's test scripts, collected in tests/tests.mk
TESTS += $(VMM_TESTS)
EXTRA_DIST += $(VMM_TESTS) $(VMM_NAMES:%=tests/vmm/%.cu) tests/vmm/vmm.h \
	tests/vmm/check.sh

if HAVE_NVCC
VMM_PROGS = $(VMM_NAMES:%=tests/vmm/%)
check_DATA += $(VMM_PROGS)
CLEANFILES += $(VMM_PROGS)
$(VMM_PROGS): tests/vmm/%: $(srcdir)/tests/vmm/%.cu $(srcdir)/tests/vmm/vmm.h $(srcdir)/tests/races/races.h $(srcdir)/tests/apps/common.h
	@$(MKDIR_P) tests/vmm
	$(AM_V_GEN)$(NVCC) $(RACE_NVCCFLAGS) -cudart shared -I$(srcdir)/tests/races \
		-I$(srcdir)/tests/apps $< -o $@ -lpthread \
		-L$(CUDA_HOME)/lib64/stubs -lcuda
endif
# on the GPU (not run by make check): tests/gpu/vmm.sh BUILD_DIR, with the
# PyTorch race cases under PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
EXTRA_DIST += tests/gpu/vmm.sh tests/gpu/races_torch/compile_race.py

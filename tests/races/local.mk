# tests/races/local.mk - the race catalogue: small CUDA programs with a
# missing synchronization between streams (the line cudalens must report is
# marked `// expect: stream-race` or `// expect: masked-race`) and correct
# twins (no mark).  Built with $(NVCC) and the shared cudart like the sample
# apps (tests/apps/local.mk); each NAME.test runs NAME under the shim and
# the simulated CUDA (tests/sim) and checks `cudalens-report --format=json`
# against the marks (tests/races/check.sh).
# Include from Makefile.am:  include tests/races/local.mk

RACE_NAMES = \
	blocking_legacy callback_ok const_reads_ok device_sync_ok untyped_shared \
	event_rerecord_ok event_sync_ok event_too_early freeasync_in_use \
	h2d_event_ok h2d_kernel host_buffer_reuse kernel_d2h mallocasync_ok \
	mallocasync_use memset_nonblocking multidev_ok neighbours_ok \
	never_waited nonblocking_legacy nvtx_names pageable_h2d_nonblocking \
	pageable_masked ptds_threads raw_event_ok raw_kernels struct_event_ok broadcast_ok \
	struct_ptr stale_struct sync_wrong_stream threads_event_ok threads_shared \
	wait_wrong_stream war_kernels war_sync_ok waw_memset waw_query_ok \
	graph_other_stream graph_other_stream_ok graph_replay_refill \
	graph_replay_refill_ok graph_unordered_nodes graph_unordered_nodes_ok \
	graph_ok graph_exec_update graph_exec_update_ok tensor_list \
	fp_shared_write fp_halves_ok fp_extent fp_atomic_ok fp_gather

RACE_GPU_ONLY =
# footprint fixtures (cudalens-report --footprints; check.sh RACES_FOOTPRINTS)
RACE_FP_FIXTURES = tests/races/broadcast_ok.fp.sql \
	$(patsubst %,tests/races/%.fp.sql,fp_shared_write fp_halves_ok fp_extent fp_atomic_ok fp_gather)
# RACE_TESTS: the folder's test scripts, collected in tests/tests.mk
TESTS += $(RACE_TESTS)
EXTRA_DIST += $(RACE_TESTS) tests/races/check.sh tests/races/races.h \
	tests/races/walk.sql tests/races/walk.expected \
	$(RACE_FP_FIXTURES) \
	$(RACE_NAMES:%=tests/races/%.cu) $(RACE_GPU_ONLY:%=tests/races/%.cu)

if HAVE_NVCC
RACE_PROGS = $(RACE_NAMES:%=tests/races/%)
RACE_NVCCFLAGS = -g -lineinfo -arch=sm_90 --no-compress
check_DATA += $(RACE_PROGS)
CLEANFILES += $(RACE_PROGS)

$(RACE_PROGS): tests/races/%: $(srcdir)/tests/races/%.cu $(srcdir)/tests/races/races.h $(srcdir)/tests/apps/common.h
	@$(MKDIR_P) tests/races
	$(AM_V_GEN)$(NVCC) $(RACE_NVCCFLAGS) -cudart shared -I$(srcdir)/tests/races \
		-I$(srcdir)/tests/apps $< -o $@ -lpthread
endif
.PHONY: races
races: $(RACE_PROGS)

# the GPU suite and the analyzer benchmark of the race analysis (not run by
# make check): tests/gpu/races.sh BUILD_DIR, bench/race_cost.sh BUILD_DIR
EXTRA_DIST += tests/gpu/races.sh tests/gpu/races_torch/seed_race.py \
	tests/gpu/races_torch/seed_fixed.py tests/gpu/races_torch/train_prefetch.py \
	tests/gpu/races_torch/reuse_race.py tests/gpu/races_torch/graph_replay.py \
	bench/race_synth.sql bench/race_cost.sh

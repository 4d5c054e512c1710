# tests/hostsync/local.mk - samples of host/device synchronization bugs
# (host-read-before-sync, host-write-before-sync, pinned-free-before-sync)
# and their correct twins, each checked by a .test against the markers in
# its source, under the simulated runtime; and timeline.test and
# timeline_layout.test, the demo
# app's findings drawn by --format=perfetto and --format=html.
HOSTSYNC_NAMES = read_before_sync write_before_sync free_before_sync \
	registered_read sync_first event_sync query_loop double_buffer callback_ok \
	syscall_access syscall_more fault_storm graph_read_before_sync graph_read_after_sync \
	capture_ok hostfn_read_early hostfn_handoff_ok flag_kernel_ok \
	hostfn_event_ok hostfn_no_wait \
	small_managed_read small_managed_sync small_pinned_read small_pinned_ok \
	step_storm copy_loop \
	$(MANAGED_NAMES)
# the managed and mapped (zero-copy) samples: kernels, memsets and copies on
# memory the host reaches too (also run on a GPU by tests/gpu/managed.sh)
MANAGED_NAMES = managed_read managed_sync managed_write managed_write_sync \
	managed_event managed_device_sync managed_query managed_memset \
	managed_attach_host mapped_read mapped_sync managed_legacy managed_legacy_ok
# (listed in full: automake cannot derive test logs from substitutions)
# copy_loop.test counts the shim's mprotect calls through this preloaded
# counter (a test double)
check_LTLIBRARIES += tests/hostsync/libmpcount.la
tests_hostsync_libmpcount_la_SOURCES = tests/hostsync/mpcount.c
tests_hostsync_libmpcount_la_LDFLAGS = -shared -module -avoid-version -no-undefined \
	-rpath $(abs_builddir)/tests/hostsync
tests_hostsync_libmpcount_la_LIBADD = -ldl
# HOSTSYNC_TESTS: the folder's test scripts, collected in tests/tests.mk
EXTRA_DIST += tests/hostsync/common.h $(HOSTSYNC_NAMES:%=tests/hostsync/%.cu) \
	tests/hostsync/capture_ok.cu tests/gpu/torch_host_storm.py tests/gpu/managed.sh \
	tests/gpu/hostfn.sh tests/gpu/jax_numpy_train.py tests/gpu/cupy_hostfn.py \
	$(HOSTSYNC_TESTS)
TESTS += $(HOSTSYNC_TESTS)
if HAVE_NVCC
HOSTSYNC_APPS = $(HOSTSYNC_NAMES:%=tests/hostsync/%)
check_DATA += $(HOSTSYNC_APPS)
CLEANFILES += $(HOSTSYNC_APPS)
$(HOSTSYNC_APPS): tests/hostsync/%: $(srcdir)/tests/hostsync/%.cu $(srcdir)/tests/hostsync/common.h \
		$(srcdir)/tests/apps/common.h
	@$(MKDIR_P) tests/hostsync
	$(AM_V_GEN)$(NVCC) -g -lineinfo -arch=sm_90 --no-compress -cudart shared $< -o $@ -lpthread
endif

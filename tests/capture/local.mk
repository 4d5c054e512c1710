# tests/capture/local.mk - end-to-end capture tests (issue #2): every sample
# app of tests/apps runs under the shim against the simulated CUDA of
# tests/sim, and its recording is checked for exact contents
# (tests/capture/<app>.expect, evaluated by tests/dbcheck), call sites
# (<app>.sites, through tests/capture/callsites) and report text
# (<app>.report); plus tests of the shim's behaviour around the app (CUPTI
# held by another tool, return codes, output names, fatal signals,
# overflow, disabling, the launcher) using tests/capture/behave.cu, and of
# programs hostile to a recorder (their own descriptors, fork storms,
# _exit, exec chains) using tests/capture/hostile.cu.  The
# same expectation files serve the GPU suite (tests/gpu/run-gpu-suite.sh).
# The .test scripts run through TEST_LOG_COMPILER (tests/local.mk).

# prints `SEQ API FILE:LINE FUNCTION` for every call of a recording
check_PROGRAMS += tests/capture/callsites
tests_capture_callsites_SOURCES = tests/capture/callsites.c
tests_capture_callsites_CPPFLAGS = $(AM_CPPFLAGS) $(ANALYZER_CPPFLAGS) $(SQLITE_CFLAGS)
tests_capture_callsites_LDADD = libclreport.la

# listed in full: automake rewrites substitution references in TESTS
CAPTURE_APP_NAMES = basic streams pinned kernel_args multidev managed_async \
	threads fork_exec driver_api
# CAPTURE_TESTS: the folder's test scripts, collected in tests/tests.mk
TESTS += $(CAPTURE_TESTS)
EXTRA_DIST += $(CAPTURE_TESTS) tests/capture/capture.sh tests/capture/ci.sh \
	tests/capture/behave.cu tests/capture/hostile.cu tests/capture/newrace.cu \
	tests/capture/unload.cpp tests/capture/benchphase.cu \
	tests/capture/common.expect \
	$(CAPTURE_APP_NAMES:%=tests/capture/%.expect) \
	$(CAPTURE_APP_NAMES:%=tests/capture/%.sites) \
	$(CAPTURE_APP_NAMES:%=tests/capture/%.report) \
	tests/gpu/run-gpu-suite.sh tests/gpu/torch_capture.py tests/gpu/torch.expect

if HAVE_NVCC
check_DATA += tests/capture/behave tests/capture/hostile tests/capture/newrace \
	tests/capture/unload tests/capture/benchphase
CLEANFILES += tests/capture/behave tests/capture/hostile tests/capture/newrace \
	tests/capture/unload tests/capture/benchphase
tests/capture/behave: $(srcdir)/tests/capture/behave.cu
	@$(MKDIR_P) tests/capture
	$(AM_V_GEN)$(NVCC) -g -lineinfo -arch=sm_90 --no-compress -cudart shared $< -o $@
tests/capture/benchphase: $(srcdir)/tests/capture/benchphase.cu
	@$(MKDIR_P) tests/capture
	$(AM_V_GEN)$(NVCC) -g -arch=sm_90 --no-compress -cudart shared $< -o $@ -ldl
# compiled from its absolute path, as build systems such as CMake do: its
# call sites are absolute paths
tests/capture/newrace: $(srcdir)/tests/capture/newrace.cu $(srcdir)/tests/races/races.h
	@$(MKDIR_P) tests/capture
	$(AM_V_GEN)$(NVCC) -g -lineinfo -arch=sm_90 --no-compress -cudart shared \
	  -I$(abs_srcdir)/tests/races -I$(abs_srcdir)/tests/apps \
	  $(abs_srcdir)/tests/capture/newrace.cu -o $@
tests/capture/hostile: $(srcdir)/tests/capture/hostile.cu
	@$(MKDIR_P) tests/capture
	$(AM_V_GEN)$(NVCC) -g -lineinfo -arch=sm_90 --no-compress -cudart shared $< -o $@ -lpthread
# a driver-API program (like tests/apps/driver_api) whose kernel handle is
# reused after its module is unloaded
tests/capture/unload: $(srcdir)/tests/capture/unload.cpp tests/apps/driver_kernels_fatbin.h
	@$(MKDIR_P) tests/capture
	$(AM_V_GEN)$(NVCC) -g -arch=sm_90 -cudart none -Itests/apps $< -o $@ \
		-L$(CUDA_HOME)/lib64/stubs -lcuda
endif

# a program that loads the CUDA runtime after start-up (dlopen by name, by
# path, from another thread, through a plugin, through its own RUNPATH)
check_PROGRAMS += tests/capture/lateload tests/capture/lateload-rp
tests_capture_lateload_SOURCES = tests/capture/lateload.c
tests_capture_lateload_LDFLAGS = -export-dynamic
tests_capture_lateload_LDADD = -ldl -lpthread
tests_capture_lateload_rp_SOURCES = tests/capture/lateload.c
tests_capture_lateload_rp_LDFLAGS = -export-dynamic \
	-Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN'
tests_capture_lateload_rp_LDADD = -ldl -lpthread
check_LTLIBRARIES += tests/capture/liblateplugin.la
tests_capture_liblateplugin_la_SOURCES = tests/capture/lateplugin.c
tests_capture_liblateplugin_la_LDFLAGS = -shared -module -avoid-version \
	-rpath $(abs_builddir)/tests/capture
tests_capture_liblateplugin_la_LIBADD = tests/sim/libcudart.la
# the shim's start-up layout as the loader sees it (tests/capture/startup_cost.test)
check_PROGRAMS += tests/capture/startup_layout
tests_capture_startup_layout_SOURCES = tests/capture/startup_layout.c
# the exec and exit wrappers' first calls (tests/capture/firstcall.test)
check_PROGRAMS += tests/capture/firstcall
tests_capture_firstcall_SOURCES = tests/capture/firstcall.c
# a child made with the raw clone3 system call (tests/capture/clone3.test)
check_PROGRAMS += tests/capture/clone3
tests_capture_clone3_SOURCES = tests/capture/clone3.c
tests_capture_clone3_LDADD = -ldl

# a full disk for the recording (tests/capture/diskfull.test)
check_PROGRAMS += tests/capture/memsets
tests_capture_memsets_SOURCES = tests/capture/memsets.c
tests_capture_memsets_LDADD = -ldl
check_LTLIBRARIES += tests/capture/libdiskfull.la
tests_capture_libdiskfull_la_SOURCES = tests/capture/diskfull.c
tests_capture_libdiskfull_la_LDFLAGS = -shared -module -avoid-version \
	-no-undefined -rpath $(abs_builddir)/tests/capture
tests_capture_libdiskfull_la_LIBADD = -ldl

# kills the process at its first write to a *.db file (tests/capture/stub.test)
check_LTLIBRARIES += tests/capture/libkillat.la
tests_capture_libkillat_la_SOURCES = tests/capture/killat.c
tests_capture_libkillat_la_LDFLAGS = -shared -module -avoid-version \
	-no-undefined -rpath $(abs_builddir)/tests/capture
tests_capture_libkillat_la_LIBADD = -ldl
# a stand-in for a wheel's libcudart.so.N (tests/capture/cuptifind.test)
check_LTLIBRARIES += tests/capture/libfakecudart.la
tests_capture_libfakecudart_la_SOURCES = tests/capture/fakecudart.c
tests_capture_libfakecudart_la_LDFLAGS = -shared -module -avoid-version \
	-no-undefined -rpath $(abs_builddir)/tests/capture
# a CUDA program built with ThreadSanitizer and with AddressSanitizer
# (tests/capture/sanitized.test)
if HAVE_SANITIZERS
check_PROGRAMS += tests/capture/sanitized-thread tests/capture/sanitized-address
tests_capture_sanitized_thread_SOURCES = tests/capture/sanitized.c
tests_capture_sanitized_thread_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
tests_capture_sanitized_thread_CFLAGS = $(AM_CFLAGS) -fsanitize=thread
tests_capture_sanitized_thread_LDFLAGS = -fsanitize=thread -no-install
tests_capture_sanitized_thread_LDADD = tests/sim/libcudart.la -lpthread
tests_capture_sanitized_address_SOURCES = tests/capture/sanitized.c
tests_capture_sanitized_address_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
tests_capture_sanitized_address_CFLAGS = $(AM_CFLAGS) -fsanitize=address
tests_capture_sanitized_address_LDFLAGS = -fsanitize=address -no-install
tests_capture_sanitized_address_LDADD = tests/sim/libcudart.la -lpthread
endif
# a stand-in for a sanitizer runtime that starts at its first intercepted
# call (tests/capture/lazy_intercept.test)
check_LTLIBRARIES += tests/capture/liblazyintercept.la
tests_capture_liblazyintercept_la_SOURCES = tests/capture/lazyintercept.c
tests_capture_liblazyintercept_la_LDFLAGS = -shared -module -avoid-version \
	-rpath $(abs_builddir)/tests/capture
tests_capture_liblazyintercept_la_LIBADD = -ldl

# tests/transfers/local.mk - sample apps for the transfer and device
# findings of cudalens-report (issue #3): each buggy app marks the line a
# finding must point at with `// expect: KIND`; each has a fixed twin
# (NAME_ok.cu) that must give none of those findings.  Built like
# tests/apps (nvcc, shared cudart, uncompressed device code: reuses
# APP_NVCCFLAGS of tests/apps/local.mk, so include this fragment after
# tests/sim/local.mk), run by NAME.test under the shim against the
# simulated CUDA (tests/transfers/run.sh, check.sh).  `make transfer-apps`
# builds just the apps; tests/gpu/transfers.sh builds and checks them on a
# GPU.

TR_BUGGY = pageable_async sync_copy sync_memset repeated_pinning \
	excess_sync cross_device stray_context default_stream sync_copy_legacy
TR_APP_NAMES = $(TR_BUGGY) $(TR_BUGGY:%=%_ok) pageable_async_both
# TR_TESTS: the folder's test scripts, collected in tests/tests.mk
TESTS += $(TR_TESTS)
EXTRA_DIST += $(TR_TESTS) $(TR_APP_NAMES:%=tests/transfers/%.cu) \
	tests/transfers/spin.h tests/transfers/check.sh tests/transfers/run.sh \
	tests/gpu/transfers.sh tests/gpu/torch_pageable.py \
	tests/gpu/torch_pinned_once.py tests/gpu/torch_pin_in_loop.py \
	tests/gpu/torch_register_in_loop.py

if HAVE_NVCC
TR_APPS = $(TR_APP_NAMES:%=tests/transfers/%)
check_DATA += $(TR_APPS)
CLEANFILES += $(TR_APPS)

$(TR_APPS): tests/transfers/%: $(srcdir)/tests/transfers/%.cu \
		$(srcdir)/tests/transfers/spin.h $(srcdir)/tests/apps/common.h
	@$(MKDIR_P) tests/transfers
	$(AM_V_GEN)$(NVCC) $(APP_NVCCFLAGS) -cudart shared -I$(srcdir)/tests/apps \
		-I$(srcdir)/tests/transfers $< -o $@
endif
.PHONY: transfer-apps
transfer-apps: $(TR_APPS)

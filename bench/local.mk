# bench/local.mk - the overhead benchmarks.  The CUDA ones are not built by
# `make`: they need a GPU; bench/run.sh builds them with nvcc and runs them
# (see bench/README.md).
EXTRA_DIST += bench/README.md bench/run.sh bench/paired_ci.awk bench/launch_bound.cu \
	bench/copy_bound.cu bench/torch_small_ops.py bench/torch_train.py \
	bench/cupti_floor.c bench/report_scale.sh bench/real_stacks.py bench/startup.sh \
	bench/copy_guard.sh bench/launch_cost.sh bench/launch_mix.cu bench/check.cuh \
	bench/phases.sh bench/phases.py bench/phases.cuh bench/builds.sh \
	bench/kparams_cold.sh bench/pcsample.c bench/pcsample.sh \
	bench/launch_pages.sh bench/launch_pages.py bench/selftime.sh \
	bench/build_shim.sh bench/ladder.sh bench/stats.awk

# the generator of large synthetic recordings (bench/report_scale.sh, and
# tests/recordings/scale.test with a small one)
check_PROGRAMS += bench/gen_recording
bench_gen_recording_SOURCES = bench/gen_recording.c
bench_gen_recording_CPPFLAGS = $(AM_CPPFLAGS) $(SQLITE_CFLAGS)
bench_gen_recording_LDADD = libclformat.la $(SQLITE_LIBS)

# the writer's rate: synthetic records straight through shim/writer_db.c
# (bench/README.md, "The writer"); built by `make`, not installed
noinst_PROGRAMS += bench/writer_rate
bench_writer_rate_SOURCES = bench/writer_rate.c
bench_writer_rate_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir) $(SQLITE_CFLAGS)
bench_writer_rate_LDADD = libclshim.la libclsqlite.la $(SHIM_SQLITE_LIBS) -ldl -lpthread

# what a preloaded library costs a process that never uses CUDA, per
# process (bench/README.md, "Start-up cost"); built by `make`, not installed
noinst_PROGRAMS += bench/startup_cpu
bench_startup_cpu_SOURCES = bench/startup_cpu.c

# native stack walks from call sites that alternate, for callgrind
# (bench/README.md, "Walks from several call sites"); built by `make`, not
# installed
noinst_PROGRAMS += bench/stack_sites
bench_stack_sites_SOURCES = bench/stack_sites.c tests/unit/shim/stack_sites.h
bench_stack_sites_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir) -O1 -fno-omit-frame-pointer
bench_stack_sites_LDADD = libclshim.la libclsqlite.la $(SHIM_SQLITE_LIBS) -ldl -lpthread

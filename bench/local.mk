# bench/local.mk - the overhead benchmarks.  Not built by `make`: they need a
# GPU; bench/run.sh builds them with nvcc and runs them (see bench/README.md).
EXTRA_DIST += bench/README.md bench/run.sh bench/launch_bound.cu \
	bench/copy_bound.cu bench/torch_small_ops.py bench/torch_train.py \
	bench/cupti_floor.c bench/report_scale.sh bench/real_stacks.py

# the generator of large synthetic recordings (bench/report_scale.sh, and
# tests/recordings/scale.rtest with a small one)
check_PROGRAMS += bench/gen_recording
bench_gen_recording_SOURCES = bench/gen_recording.c
bench_gen_recording_CPPFLAGS = $(AM_CPPFLAGS) $(SQLITE_CFLAGS)
bench_gen_recording_LDADD = libclformat.la $(SQLITE_LIBS)

# bench/local.mk - the overhead benchmarks.  Not built by `make`: they need a
# GPU; bench/run.sh builds them with nvcc and runs them (see bench/README.md).
EXTRA_DIST += bench/README.md bench/run.sh bench/launch_bound.cu \
	bench/copy_bound.cu bench/torch_small_ops.py bench/torch_train.py \
	bench/cupti_floor.c

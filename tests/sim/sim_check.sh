#!/bin/sh
# sim_check.sh - checks the simulated CUDA stack (a TEST DOUBLE): runs every
# sample app of tests/apps under tests/sim/lib with the printing subscriber
# libsimselftest.so preloaded, and checks that callbacks (cbids, names,
# nesting, resource and synchronize domains), activity records (memory
# kinds, copy kinds, kernels, peer copies) and kernel parameter layouts
# arrive as real CUPTI would deliver them; then checks the env knobs.
# Run from the top build directory (make check does); logs in tests/sim/check/.
set -u
top=${CLSIM_BUILDDIR:-.}
lib=$(cd "$top/tests/sim/lib" && pwd) || { echo "no $top/tests/sim/lib: run make sim"; exit 99; }
apps=$(cd "$top/tests/apps" && pwd) || { echo "no $top/tests/apps: run make apps"; exit 77; }
logs=$top/tests/sim/check
mkdir -p "$logs"
fails=0

# run NAME APP [ENV=VALUE...]: runs the app, output in $logs/NAME.log
run() {
    name=$1 app=$2
    shift 2
    rm -f "$logs/$name.log"
    env LD_LIBRARY_PATH="$lib" LD_PRELOAD="$lib/libsimselftest.so" \
        CUDALENS_SIM_SELFTEST_OUT="$logs/$name.log" "$@" "$apps/$app" > "$logs/$name.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL $name: exit $rc"; cat "$logs/$name.out"; fails=$((fails + 1))
    fi
    cur=$name
}

# want REGEX [COUNT]: the log of the last run has a line matching (COUNT times)
want() {
    n=$(grep -cE -- "$1" "$logs/$cur.log")
    if [ $# -ge 2 ] && [ "$n" -ne "$2" ]; then
        echo "FAIL $cur: $n lines match /$1/, want $2"; fails=$((fails + 1))
    elif [ $# -lt 2 ] && [ "$n" -eq 0 ]; then
        echo "FAIL $cur: no line matches /$1/"; fails=$((fails + 1))
    fi
}

run basic basic
want '^SUBSCRIBE OK \(second: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED\)'
want '^API RT ENTER cudaMalloc cbid=20 .*ctx=0 '
want '^RES CONTEXT_CREATED ctx=1 dev=0' 1
want '^API DRV ENTER cuMemcpyHtoD_v2 cbid=276 '
want '^API RT EXIT cudaMemcpy cbid=31 .*ret=0'
want '^API RT ENTER cudaLaunchKernel cbid=211 .*sym=_Z7add_onePfi '
want '^API DRV ENTER cuLaunchKernel cbid=307 .*sym=_Z7add_onePfi '
want '^PARAMS _Z7add_onePfi via=kernel funcret=400 0:0\+8 1:8\+4 end=1$'
want '^SYNC CONTEXT_SYNCHRONIZED ctx=1'
want '^ACT MEMCPY HTOD src=PAGEABLE dst=DEVICE bytes=4096 async=0 '
want '^ACT MEMCPY DTOH src=DEVICE dst=PAGEABLE bytes=4096 async=0 '
want '^ACT KERNEL _Z7add_onePfi grid=4,1,1 block=256,1,1 '
want '^RES CONTEXT_DESTROY_STARTING' 0   # none at exit (as measured)
want 'CORRDATA-LOST' 0
# nested driver calls share the runtime call's correlation id (as measured)
want '^API RT ENTER cudaMalloc cbid=20 corr=1 '
want '^API DRV ENTER cuMemAlloc_v2 cbid=243 corr=1 '
want '^API DRV ENTER cuCtxSynchronize_v2 cbid=800 '
want '^ACT MEMCPY .* stream=7 '
# the kernel record carries the runtime launch's correlation id
kc=$(sed -n 's/^ACT KERNEL .* corr=\([0-9]*\) .*/\1/p' "$logs/basic.log")
grep -qE "^API RT ENTER cudaLaunchKernel cbid=211 corr=$kc " "$logs/basic.log" ||
    { echo "FAIL basic: kernel corr=$kc is not the cudaLaunchKernel's"; fails=$((fails + 1)); }

run kernel_args kernel_args
want '^PARAMS _Z5saxpyPfPKfif via=kernel funcret=400 0:0\+8 1:8\+8 2:16\+4 3:20\+4 end=1$'
want '^PARAMS _Z9copy_pair4Pairi via=kernel funcret=400 0:0\+16 1:16\+4 end=1$'
want '^PARAMS _Z5mixedPfPKfi4Pair via=kernel funcret=400 0:0\+8 1:8\+8 2:16\+4 3:24\+16 end=1$'
want '^ACT MEMSET kind=DEVICE value=0 bytes=2048 async=0 '

run streams streams
want '^RES STREAM_CREATED ctx=1 dev=0 stream=1[34]$' 2
want '^API RT EXIT cudaStreamCreateWithPriority cbid=202 '
want '^API RT EXIT cudaStreamWaitEvent cbid=147 '
want '^API RT EXIT cudaEventSynchronize cbid=137 '
want '^API RT EXIT cudaEventQuery cbid=138 .*ret=0'
want '^API RT EXIT cudaStreamQuery cbid=132 .*ret=0'
want '^SYNC STREAM_SYNCHRONIZED ctx=1 stream=' 2
want '^RES STREAM_DESTROY_STARTING ctx=1 dev=0 stream=' 2
want '^ACT KERNEL _Z4fillPiii '
want '^ACT KERNEL _Z5scalePiii '
want '^ACT MEMCPY DTOH src=DEVICE dst=PAGEABLE bytes=16 async=1 '

run pinned pinned
want '^ACT MEMCPY HTOD src=PINNED dst=DEVICE bytes=1048576 async=1 '
want '^ACT MEMCPY DTOH src=DEVICE dst=PINNED bytes=1048576 async=1 ' 2
want '^ACT MEMCPY HTOD src=PAGEABLE dst=DEVICE bytes=1048576 async=1 '
want '^ACT MEMCPY DTOH src=DEVICE dst=PAGEABLE bytes=1048576 async=1 '
want '^ACT MEMSET kind=DEVICE value=7 bytes=1048576 async=1 '
want '^API DRV ENTER cuMemHostRegister_v2 '
want '^API RT EXIT cudaHostUnregister cbid=153 .*ret=0'
want '^API RT EXIT cudaFreeHost cbid=26 .*ret=0' 2

run multidev multidev CUDALENS_SIM_DESTROY_AT_EXIT=1
want '^RES CONTEXT_CREATED ctx=2 dev=1'
want '^API RT EXIT cudaDeviceEnablePeerAccess cbid=155 .*ret=0'
want '^ACT MEMCPY2 PTOP src=DEVICE dst=DEVICE bytes=1024 srcdev=1 dstdev=0 '
want '^ACT KERNEL _Z4iotaPiii .* dev=1 ctx=2 '
want '^RES CONTEXT_DESTROY_STARTING' 2

run managed_async managed_async
want '^API RT EXIT cudaMallocAsync cbid=373 .*ret=0'
want '^API RT EXIT cudaFreeAsync cbid=375 .*ret=0'
want '^API RT EXIT cudaLaunchHostFunc cbid=284 .*ret=0'
want '^ACT MEMCPY DTOD src=MANAGED dst=DEVICE bytes=4000 async=1 '

run threads threads
want '^RES CONTEXT_CREATED' 1
want '^RES STREAM_CREATED' 2
want '^ACT KERNEL _Z3incPii ' 6

run driver_api driver_api
want '^API RT ' 0
want '^API DRV ENTER cuModuleLoadData '
want '^API DRV ENTER cuLaunchKernel cbid=307 .*sym=scale '
want '^PARAMS scale via=func funcret=0 0:0\+8 1:8\+4 2:12\+4 end=1$'
want '^PARAMS _Z10scale_span4Spanf via=func funcret=0 0:0\+16 1:16\+4 end=1$'
want '^ACT KERNEL scale grid=4,1,1 '
want '^ACT MEMCPY HTOD src=PAGEABLE dst=DEVICE bytes=4096 async=0 '
want '^SYNC STREAM_SYNCHRONIZED'
want '^RES CONTEXT_DESTROY_STARTING ctx=1' 1   # cuDevicePrimaryCtxRelease

run fork_exec fork_exec CUDALENS_SIM_DESTROY_AT_EXIT=1
want '^RES CONTEXT_DESTROY_STARTING' 1   # not again in the forked children
want '^ACT KERNEL _Z3negPfi ' 1

# ---- knobs ----------------------------------------------------------------
run busy basic CUDALENS_SIM_CUPTI_BUSY=1
want '^SUBSCRIBE FAILED CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED'
want '^API ' 0

run notready streams CUDALENS_SIM_QUERY_NOT_READY=3
want '^API RT EXIT cuda(Event|Stream)Query .*ret=600' 3

run onedev multidev CUDALENS_SIM_DEVICES=1
grep -q 'multidev: ok (1 devices)' "$logs/onedev.out" || { echo "FAIL onedev"; fails=$((fails + 1)); }

run visible multidev CUDA_VISIBLE_DEVICES=1
grep -q 'device 0: cudalens simulated GPU 1' "$logs/visible.out" || { echo "FAIL visible"; fails=$((fails + 1)); }

if [ $fails -ne 0 ]; then
    echo "sim_check: $fails failure(s); logs in $logs"
    exit 1
fi
echo "sim_check: all checks passed"
exit 0

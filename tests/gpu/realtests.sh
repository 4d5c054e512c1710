#!/bin/sh
# realtests.sh - runs tests of `make check` (the .test scripts of tests/)
# against the real CUDA runtime and GPU instead of the simulated runtime:
# the same programs, the same checks.  run-test.sh reads the CUDA libraries
# from CL_CUDA_LIBDIR, here a folder of links to the real libcudart.so.13
# and libcupti.so.13 (the driver's libcuda.so.1 comes from the system).
#
#   tests/gpu/realtests.sh BUILD_DIR OUTDIR TEST...
#
# BUILD_DIR: a build tree after make check, or tests/gpu/kit.sh's KIT/build
# (BUILD_DIR/lib-extra goes on the report's library path).  Runs the tests
# 8 at a time, 120 s each at most; OUTDIR gets one log per test and
# summary.txt (PASS / FAIL / SKIP per test).  Exit 0 when none failed.
# Tests whose checks need the simulator (its timings, its fault injection)
# fail here by design: read the log before calling it a defect.
set -u
[ $# -ge 3 ] || { echo "usage: $0 BUILD_DIR OUTDIR TEST..." >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
lib=$out/cudalib
mkdir -p "$lib"
for l in "$CUDA_HOME"/lib64/libcudart.so.13 "$CUDA_HOME"/extras/CUPTI/lib64/libcupti.so.13 \
         "$CUDA_HOME"/lib64/libcupti.so.13; do
  [ -e "$l" ] && ln -sf "$l" "$lib/$(basename "$l")"
done
[ -e "$lib/libcudart.so.13" ] || { echo "$0: no libcudart.so.13 in $CUDA_HOME" >&2; exit 2; }
# the report's own libraries too: the tests run programs with this folder
# as their library path, and `cudalens run --fail-on` runs cudalens-report
# with the program's environment
for l in "$build"/lib-extra/*; do
  [ -e "$l" ] && ln -sf "$l" "$lib/$(basename "$l")"
done
CL_TOP_BUILDDIR=$build CL_TOP_SRCDIR=$top CL_CUDA_LIBDIR=$lib
LD_LIBRARY_PATH=$build/lib-extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CL_TOP_BUILDDIR CL_TOP_SRCDIR CL_CUDA_LIBDIR LD_LIBRARY_PATH
for t in "$@"; do echo "$t"; done |
  xargs -P 8 -I{} sh -c '
    t={}; n=$(echo "$t" | sed "s|^tests/||; s|/|-|g")
    # a test that runs a suite twice (hostsync/lazy.test: 70 tests, eager
    # and lazy) needs more than the 120 s of one test
    case $t in */lazy.test) limit=900 ;; *) limit=120 ;; esac
    timeout $limit sh "$0/tests/run-test.sh" "$0/$t" >"$1/$n.log" 2>&1
    rc=$?
    case $rc in 0) v=PASS ;; 77) v=SKIP ;; *) v="FAIL($rc)" ;; esac
    echo "$v $t" >>"$1/summary.txt"' "$top" "$out"
sort -k2 "$out/summary.txt" -o "$out/summary.txt"
cat "$out/summary.txt"
! grep -q '^FAIL' "$out/summary.txt"

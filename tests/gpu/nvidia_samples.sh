#!/bin/sh
# nvidia_samples.sh - runs NVIDIA's public CUDA samples under cudalens on a
# GPU machine and prints their findings: correct real programs must give no
# error findings.  The samples' sources are not part of cudalens: pass the
# folder holding them (one sub-folder per sample plus Common/ with the
# helper headers, as in github.com/NVIDIA/cuda-samples).
#
#   tests/gpu/nvidia_samples.sh SAMPLES_DIR BUILD_DIR OUTDIR
#
# BUILD_DIR has .libs/libcudalens.so and cudalens-report (with BUILD_DIR/
# lib-extra on LD_LIBRARY_PATH for the report's own libraries).  For each
# sample: build for sm_90, run natively and under the shim, compare exit
# status and the final verdict line, write the report to OUTDIR.
set -u
[ $# -eq 3 ] || { echo "usage: $0 SAMPLES_DIR BUILD_DIR OUTDIR" >&2; exit 2; }
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd) out=$3
mkdir -p "$out/bin"
shim=$build/.libs/libcudalens.so
[ -f "$shim" ] || shim=$build/libcudalens.so
report() { LD_LIBRARY_PATH="$build/lib-extra" "$build/cudalens-report" "$@"; }
status=0
for s in asyncAPI simpleStreams simpleMultiCopy simpleHyperQ simpleCallback \
         simpleCudaGraphs streamOrderedAllocation; do
  [ -d "$src/$s" ] || { echo "$s: not found, skipped"; continue; }
  extra=
  [ -f "$src/$s/multithreading.cpp" ] && extra=$src/$s/multithreading.cpp
  nvcc -O2 -g -lineinfo -arch=sm_90 -I"$src/Common" "$src/$s/$s.cu" $extra \
    -o "$out/bin/$s" >"$out/$s.build.log" 2>&1 ||
    { echo "$s: build failed"; status=1; continue; }
  (cd "$out" && "bin/$s" >"$s.native.out" 2>&1); n=$?
  (cd "$out" && LD_PRELOAD=$shim CUDALENS_OUTPUT="$out/$s.db" \
    "bin/$s" >"$s.shim.out" 2>&1); c=$?
  verdict_n=$(grep -iE "pass|fail|result" "$out/$s.native.out" | tail -n 1)
  verdict_c=$(grep -iE "pass|fail|result" "$out/$s.shim.out" | tail -n 1)
  report "$out/$s.db" >"$out/$s.report.txt" 2>&1
  errors=$(grep -c '^[^ ]*: error: \[' "$out/$s.report.txt")
  warnings=$(grep -c '^[^ ]*: warning: \[' "$out/$s.report.txt")
  same=same
  [ "$n" = "$c" ] && [ "$verdict_n" = "$verdict_c" ] || { same=DIFFERENT; status=1; }
  [ "$errors" -eq 0 ] || status=1
  echo "$s: exit native $n cudalens $c ($same: '$verdict_c'), $errors errors, $warnings warnings"
  grep -E '^[^ ]*: (error|warning|note): \[' "$out/$s.report.txt" | cut -c1-220 | sed 's/^/    /'
done
exit $status

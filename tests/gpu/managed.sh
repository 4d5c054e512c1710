#!/bin/sh
# managed.sh - the host check on managed and mapped (zero-copy) memory
# (issue 9) on a GPU machine: builds the managed_* and mapped_* samples of
# tests/hostsync for sm_90 (or takes the build tree's), runs each natively
# and under the shim (same output and exit status), checks its report
# against the `// expect:` markers of its source, and notes the device's
# concurrentManagedAccess (the samples assume 1, like the H100).  Not run
# by make check.
#
#   tests/gpu/managed.sh BUILD_DIR OUTDIR
#
# BUILD_DIR: .libs/libcudalens.so and cudalens-report (its own libraries in
# BUILD_DIR/lib-extra when the machine lacks them).
set -u
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR OUTDIR" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
out=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/bin"
shim=$build/.libs/libcudalens.so
[ -e "$shim" ] || { echo "no $shim: build first" >&2; exit 2; }
report() { LD_LIBRARY_PATH="$build/lib-extra" "$build/cudalens-report" "$@"; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check SRC REPORT: the markers of a sample against its report (tests/marks.sh)
. "$top/tests/marks.sh"
check() { marks_text "$1" "$2" marks_say_ok fail; }

# the device's managed-memory model (the samples' findings assume
# concurrentManagedAccess = 1; see HOST ACCESSES in libcudalens(7))
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

names="managed_read managed_sync managed_write managed_write_sync
  managed_event managed_device_sync managed_query managed_memset
  managed_attach_host mapped_read mapped_sync managed_legacy managed_legacy_ok"
for n in $names; do
  # the build tree's program (make check builds it), else nvcc here
  cp "$build/tests/hostsync/$n" "$out/bin/$n" 2>/dev/null ||
  nvcc -g -lineinfo -arch=sm_90 --no-compress -cudart shared \
    "$top/tests/hostsync/$n.cu" -o "$out/bin/$n" -lpthread >"$out/$n.build" 2>&1 &
done
wait
for n in $names; do
  [ -x "$out/bin/$n" ] || { fail "$n: not built ($(head -c 300 "$out/$n.build" 2>/dev/null))"; continue; }
  "$out/bin/$n" >"$out/$n.native" 2>&1; rn=$?
  LD_PRELOAD=$shim CUDALENS_OUTPUT="$out/$n.db" "$out/bin/$n" >"$out/$n.shim" 2>&1; rs=$?
  if [ "$rn" != "$rs" ] || ! cmp -s "$out/$n.native" "$out/$n.shim"; then
    fail "$n: output or exit status differs under cudalens ($rn/$rs)"
    diff "$out/$n.native" "$out/$n.shim" | head -n 5
  fi
  echo "$n: $(head -n 1 "$out/$n.shim")"
  report "$out/$n.db" >"$out/$n.report" 2>&1
  check "$top/tests/hostsync/$n.cu" "$out/$n.report"
  grep '\[host-' "$out/$n.report" | cut -c1-200
done
echo "managed.sh: $fails failed"
[ "$fails" -eq 0 ]

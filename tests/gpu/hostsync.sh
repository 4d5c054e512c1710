#!/bin/sh
# hostsync.sh - the host/device synchronization checks on a GPU machine:
# builds tests/hostsync for sm_90, runs each sample natively and under the
# shim (same output and exit status), checks the report against the
# `// expect:` markers of its source, and runs tests/gpu/torch_host.py
# (the bug must be reported at its Python line, the fixed twin must be
# clean and print the same value), and tests/gpu/torch_host_storm.py (issue 9:
# concurrent faults and synchronizations never kill the program).
#
#   tests/gpu/hostsync.sh BUILD_DIR OUTDIR
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
report() { LD_LIBRARY_PATH="$build/lib-extra" "$build/cudalens-report" "$@"; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check SRC REPORT: the markers of a sample against its report (tests/marks.sh)
. "$top/tests/marks.sh"
check() { marks_text "$1" "$2" marks_say_ok fail; }

names="read_before_sync write_before_sync free_before_sync registered_read
  sync_first event_sync query_loop double_buffer callback_ok capture_ok
  syscall_more"
for n in $names; do
  # the build tree's program (make check builds it), else nvcc here
  cp "$build/tests/hostsync/$n" "$out/bin/$n" 2>/dev/null ||
  nvcc -g -lineinfo -arch=sm_90 -cudart shared "$top/tests/hostsync/$n.cu" \
    -o "$out/bin/$n" -lpthread >"$out/$n.build" 2>&1 &
done
wait
for n in $names; do
  "$out/bin/$n" >"$out/$n.native" 2>&1; rn=$?
  LD_PRELOAD=$shim CUDALENS_OUTPUT="$out/$n.db" "$out/bin/$n" >"$out/$n.shim" 2>&1; rs=$?
  [ "$rn" = "$rs" ] && cmp -s "$out/$n.native" "$out/$n.shim" ||
    fail "$n: output or exit status differs under cudalens"
  report "$out/$n.db" >"$out/$n.report" 2>&1
  check "$top/tests/hostsync/$n.cu" "$out/$n.report"
done

for v in bug fixed; do
  python3 "$top/tests/gpu/torch_host.py" $v >"$out/torch-$v.native" 2>&1
  LD_PRELOAD=$shim CUDALENS_OUTPUT="$out/torch-$v.db" \
    python3 "$top/tests/gpu/torch_host.py" $v >"$out/torch-$v.shim" 2>&1
  cmp -s "$out/torch-$v.native" "$out/torch-$v.shim" ||
    fail "torch $v: output differs under cudalens"
  report "$out/torch-$v.db" >"$out/torch-$v.report" 2>&1
  echo "torch $v: $(cat "$out/torch-$v.shim")"
  grep '\[host-' "$out/torch-$v.report" | cut -c1-160
done
line=$(grep -n 'expect (bug)' "$top/tests/gpu/torch_host.py" | cut -d: -f1)
grep -q "torch_host.py:$line: error: \[host-read-before-sync\]" "$out/torch-bug.report" ||
  fail "torch bug: host-read-before-sync not at torch_host.py:$line"
! grep -q '\[host-' "$out/torch-fixed.report" || fail "torch fixed: host finding"
# issue 9: 8 processes x 200 iterations of the non_blocking read pattern,
# 4 reader threads each, 8 CPU burners: no process may die
python3 "$top/tests/gpu/torch_host_storm.py" "$out/storm-summary.txt" \
  --shim "$shim" --outdir "$out/storm" >"$out/storm.log" 2>&1 ||
  fail "torch_host_storm: $(tail -n 1 "$out/storm-summary.txt" 2>/dev/null)"
tail -n 1 "$out/storm-summary.txt" 2>/dev/null
echo "hostsync.sh: $fails failed"
[ "$fails" -eq 0 ]

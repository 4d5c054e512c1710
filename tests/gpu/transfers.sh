#!/bin/sh
# transfers.sh - the transfer and device findings on a real GPU (issue #3).
#
#   tests/gpu/transfers.sh BUILD_DIR [OUT_DIR]
#
# BUILD_DIR is a cudalens build (.libs/libcudalens.so and cudalens-report;
# libraries the report needs but the machine lacks, such as libdw.so.1, may
# sit in BUILD_DIR/lib-extra).  OUT_DIR (default $OUT, else
# ./transfers-gpu) receives the recordings, the reports and summary.txt.
#
# 1. Builds the sample apps of tests/transfers (buggy + fixed twin) with
#    nvcc for sm_90 and the shared cudart, runs each under the shim, reports
#    the recording as JSON and text, and checks the findings against the
#    `// expect:` marks (tests/transfers/check.sh): PASS, FAIL, PARTIAL (the
#    kind is there, not at the marked line), or SKIP (the app needs 2 GPUs).
#    cross_device runs with --safe (its kernel gets n = 0 and does not
#    fault).
# 2. Runs the PyTorch samples tests/gpu/torch_*.py under the shim the same
#    way (`# expect:` marks).  Python call sites resolve to file:line only
#    once the report knows Python frames; until then expect PARTIAL.
#    torch_pin_in_loop may show no repeated-pinning if PyTorch's caching
#    host allocator reused the pinned blocks: the summary then says how many
#    cudaHostAlloc calls there were.
# Needs: nvcc (CUDA_HOME, default /usr/local/cuda), python3 with torch for
# part 2, POSIX sh and awk (jq if present).  Exit status: 0 when nothing
# FAILed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [OUT_DIR]" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
out=${2:-${OUT:-./transfers-gpu}}
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
shim=$build/.libs/libcudalens.so
report_bin=$build/cudalens-report
[ -f "$shim" ] || { echo "$0: no $shim" >&2; exit 2; }
[ -x "$report_bin" ] || { echo "$0: no $report_bin" >&2; exit 2; }
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
ARCH=${ARCH:--arch=sm_90}
. "$top/tests/marks.sh"
. "$top/tests/transfers/check.sh"
# the shim needs libcupti.so.13 (appended: a test double earlier in the
# path, such as tests/sim/lib for a dry run, still wins)
LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$CUDA_HOME/lib64:$CUDA_HOME/extras/CUPTI/lib64
export LD_LIBRARY_PATH

summary=$out/summary.txt
: >"$summary"
log() { echo "$*" | tee -a "$summary"; }
nfail=0

report() { # DB NAME: NAME.json and NAME.txt next to the recording
  LD_LIBRARY_PATH="$build/lib-extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$report_bin" --format=json "$1" >"$out/$2.json" 2>"$out/$2.report.err" &&
  LD_LIBRARY_PATH="$build/lib-extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$report_bin" "$1" >"$out/$2.txt" 2>>"$out/$2.report.err"
}

# check NAME SOURCE RC: classify one run, append its findings to the summary
check() {
  name=$1 src=$2 rc=$3
  if [ "$rc" -eq 77 ]; then
    log "SKIP    $name: $(tail -n 1 "$out/$name.out" 2>/dev/null)"
    return
  fi
  db=$(ls -t "$out/$name"-*.db 2>/dev/null | head -n 1)
  if [ -z "$db" ]; then
    log "FAIL    $name: exited $rc, no recording"; nfail=$((nfail + 1)); return
  fi
  if ! report "$db" "$name"; then
    log "FAIL    $name: cudalens-report failed: $(head -n 1 "$out/$name.report.err")"
    nfail=$((nfail + 1)); return
  fi
  res=$(tr_check "$src" "$out/$name.json")
  st=$?
  case $st in
    0) verdict=PASS ;;
    2) verdict=PARTIAL ;;
    *) verdict=FAIL; nfail=$((nfail + 1)) ;;
  esac
  [ "$rc" -eq 0 ] || res="$res (the app exited $rc)"
  log "$(printf '%-8s%s' "$verdict" "$name")"
  [ -n "$res" ] && printf '%s\n' "$res" | sed 's/^/        /' | tee -a "$summary"
  # the findings, as the text report prints them
  sed -n '/^Findings/,/^$/p' "$out/$name.txt" | grep -E '^[^ ].*: (error|warning|note): \[' |
    cut -c1-400 | sed 's/^/        | /' | tee -a "$summary"
}

log "== cudalens transfer/device findings on $(hostname) ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
command -v nvidia-smi >/dev/null 2>&1 &&
  nvidia-smi --query-gpu=index,name --format=csv,noheader | sed 's/^/   GPU /' | tee -a "$summary"

# ---- 1. the CUDA sample apps ----------------------------------------------
apps="pageable_async sync_copy sync_memset repeated_pinning excess_sync cross_device stray_context default_stream sync_copy_legacy"
# programs without a twin: pageable_async_both (both copies of a pageable
# round trip reported, each at its line)
singles="pageable_async_both"
mkdir -p "$out/apps"
for a in $apps $singles; do
  twin=${a}_ok
  case " $singles " in *" $a "*) twin= ;; esac
  for app in $a $twin; do
    src=$top/tests/transfers/$app.cu
    # the build tree's program (make check builds it), else nvcc here
    if ! cp "$build/tests/transfers/$app" "$out/apps/$app" 2>/dev/null &&
       ! $NVCC -g -lineinfo $ARCH --no-compress -cudart shared -I"$top/tests/apps" \
         -I"$top/tests/transfers" "$src" -o "$out/apps/$app" -lpthread \
         >"$out/$app.build.log" 2>&1; then
      log "FAIL    $app: nvcc failed (see $app.build.log)"; nfail=$((nfail + 1)); continue
    fi
    args=
    [ "$app" = cross_device ] && args=--safe
    rm -f "$out/$app"-*.db
    LD_PRELOAD=$shim CUDALENS_OUTPUT="$out/$app-%p.db" \
      "$out/apps/$app" $args >"$out/$app.out" 2>"$out/$app.err"
    check "$app" "$src" $?
  done
done

# ---- 2. PyTorch --------------------------------------------------------------
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  for py in torch_pageable torch_pinned_once torch_pin_in_loop torch_register_in_loop; do
    src=$here/$py.py
    rm -f "$out/$py"-*.db
    LD_PRELOAD=$shim CUDALENS_OUTPUT="$out/$py-%p.db" \
      python3 "$src" >"$out/$py.out" 2>"$out/$py.err"
    check "$py" "$src" $?
    db=$(ls -t "$out/$py"-*.db 2>/dev/null | head -n 1)
    if [ -n "$db" ] && command -v python3 >/dev/null; then
      # what PyTorch did, whatever the report concluded
      python3 - "$db" <<'PYEOF' | sed 's/^/        > /' | tee -a "$summary"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = lambda s: db.execute(s).fetchall()
for name, n in q("SELECT a.name, count(*) FROM calls c JOIN api a ON a.id = c.api"
                 " WHERE a.op IN ('copy', 'alloc', 'free', 'sync-stream', 'sync-device')"
                 " GROUP BY a.name ORDER BY 2 DESC"):
    print("%6d %s" % (n, name))
for kind, sk, n in q("SELECT copy_kind, src_kind, count(*) FROM activity"
                     " WHERE kind LIKE 'memcpy%' GROUP BY 1, 2"):
    print("       memcpy %s from %s: %d" % (kind, sk, n))
try:
    n = q("SELECT count(*) FROM calls WHERE pystack IS NOT NULL")[0][0]
    print("       calls with a Python stack: %d" % n)
except sqlite3.Error:
    pass
PYEOF
    fi
  done
else
  log "SKIP    PyTorch samples: python3 with CUDA-enabled torch not available"
fi

log "== $nfail failed; details in $out (NAME.txt reports, NAME.json, NAME.err)"
[ "$nfail" -eq 0 ]

#!/bin/sh
# run-gpu-suite.sh - the end-to-end capture suite on a real GPU (no sim).
#
#   tests/gpu/run-gpu-suite.sh BUILD_DIR OUTDIR
#
# BUILD_DIR is a build tree made elsewhere and carried over; it must hold
# .libs/libcudalens.so, cudalens-report, tests/dbcheck and
# tests/capture/callsites.  When BUILD_DIR/lib-extra exists (libdw.so.1 and
# friends) it goes on LD_LIBRARY_PATH of those three tools only, never of
# the programs under test.
#
# Takes the sample apps of tests/apps from CL_GPU_KIT/apps-{shared,static}
# (tests/gpu/kit.sh) when set, else builds them with tests/apps/build.sh for
# sm_90, with the shared and the static cudart (in parallel), runs each natively
# and with LD_PRELOAD=libcudalens.so, and checks its recording against the
# same files as CI (tests/capture/common.expect, <app>.expect, <app>.sites,
# <app>.report, through tests/capture/capture.sh; multidev adapts to the
# GPUs present); then records tests/gpu/torch_capture.py (PyTorch) and
# checks tests/gpu/torch.expect.  Writes OUTDIR/summary.txt (a table: app x
# variant -> calls, kernels, copies, checks passed/failed) and
# OUTDIR/gpu-suite.tar.gz (recordings, outputs, logs, check results).
# Exit status 0 when every check passed, 1 otherwise, 2 on bad usage.
# Environment: CUDA_HOME (default /usr/local/cuda), ARCH (default
# -arch=sm_90), PYTHON (default python3), SKIP_TORCH=1 to leave PyTorch out.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUTDIR" >&2
  exit 2
fi
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "$0: no build directory $1" >&2; exit 2; }
mkdir -p "$2" || exit 2
OUT=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
ARCH=${ARCH:--arch=sm_90}
PYTHON=${PYTHON:-python3}
export CUDA_HOME ARCH
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-suite.XXXXXX") || exit 2
mkdir -p "$work/logs"
summary=$work/summary.txt
start=$(date +%s)

SHIM=$BUILD/.libs/libcudalens.so
CAP_DIR=$top/tests/capture
CAP_APPSRC=$top/tests/apps
CAP_DBCHECK=$BUILD/tests/dbcheck
CAP_CALLSITES=$BUILD/tests/capture/callsites
CAP_REPORT=$BUILD/cudalens-report
CAP_TOOL_LD=
[ -d "$BUILD/lib-extra" ] && CAP_TOOL_LD=$BUILD/lib-extra
. "$CAP_DIR/capture.sh"

APPS="basic streams pinned kernel_args multidev managed_async threads fork_exec driver_api"
VARIANTS="shared static"

say() { echo "$*" | tee -a "$summary"; }

# q DB SQL: one value, through sqlite3 or Python's sqlite3 module
q() {
  if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 -batch -noheader "file:$1?mode=ro" "$2" 2>/dev/null
  else
    "$PYTHON" -c 'import sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
r = c.execute(sys.argv[2]).fetchone()
print("" if r is None or r[0] is None else r[0])' "$1" "$2" 2>/dev/null
  fi
}

# finish STATUS: summary and tarball into OUTDIR, then exit
finish() {
  say "total: $total_pass checks passed, $total_fail failed, $(($(date +%s) - start)) s"
  cp "$summary" "$OUT/summary.txt"
  # the app binaries stay out (big, and useless elsewhere; logs/ has the
  # build logs)
  tar -czf "$OUT/gpu-suite.tar.gz" -C "$work" --exclude='./apps-*' .
  echo "results: $OUT/summary.txt $OUT/gpu-suite.tar.gz (work folder $work)"
  exit "$1"
}
total_pass=0
total_fail=0

# ---- environment ---------------------------------------------------------
say "cudalens GPU suite, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(uname -n)"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
say "GPUs: $ngpu ($(nvidia-smi -L 2>/dev/null | head -n 1)); CUDA $CUDA_HOME; nvcc $("$CUDA_HOME/bin/nvcc" --version 2>/dev/null | sed -n 's/.*release \([^,]*\).*/\1/p')"
say "sqlite3 CLI: $(command -v sqlite3 || echo "none (using $PYTHON)"); tools' extra libraries: ${CAP_TOOL_LD:-none}"
for p in "$SHIM" "$CAP_DBCHECK" "$CAP_CALLSITES" "$CAP_REPORT"; do
  if [ ! -e "$p" ]; then
    say "FAIL: $p missing in the build tree"
    total_fail=$((total_fail + 1))
  fi
done
[ "$total_fail" -eq 0 ] || finish 1
for p in "$CAP_DBCHECK" "$CAP_CALLSITES" "$CAP_REPORT"; do
  cap_tool "$p" >/dev/null 2>"$work/logs/tool.err"
  if grep -q 'error while loading shared libraries' "$work/logs/tool.err"; then
    say "FAIL: $(basename "$p") cannot start: $(head -n 1 "$work/logs/tool.err")"
    total_fail=$((total_fail + 1))
  fi
done
[ "$total_fail" -eq 0 ] || finish 1

# ---- the apps: prebuilt in CL_GPU_KIT, else built here in parallel --------
if [ -n "${CL_GPU_KIT:-}" ] && [ -d "$CL_GPU_KIT/apps-shared" ] && [ -d "$CL_GPU_KIT/apps-static" ]; then
  say "apps prebuilt by tests/gpu/kit.sh in $CL_GPU_KIT"
  for v in $VARIANTS; do
    cp -r "$CL_GPU_KIT/apps-$v" "$work/apps-$v"
    for app in $APPS; do echo 0 >"$work/logs/build-$v-$app.rc"; done
  done
else
  say "building $APPS, shared and static cudart ($ARCH)"
  for v in $VARIANTS; do
    for app in $APPS; do
      (APPS=$app sh "$top/tests/apps/build.sh" "$work/apps-$v" "$v" \
        >"$work/logs/build-$v-$app.log" 2>&1
      echo $? >"$work/logs/build-$v-$app.rc") &
    done
  done
  wait
  say "built in $(($(date +%s) - start)) s"
fi

# ---- run and check each app ----------------------------------------------
printf '%-14s %-7s %6s %8s %7s %7s %7s\n' app variant calls kernels copies passed failed >"$work/table"
row() { printf '%-14s %-7s %6s %8s %7s %7s %7s\n' "$@" >>"$work/table"; }

# check_run NAME TEST: one check of the run
check_run() {
  if [ "$2" = 0 ]; then cap_ok "$1"; else cap_bad "$1"; fi
}

for v in $VARIANTS; do
  for app in $APPS; do
    d=$work/$v/$app
    mkdir -p "$d/rec"
    p0=$cap_pass
    f0=$cap_fail
    bin=$work/apps-$v/$app
    if [ "$(cat "$work/logs/build-$v-$app.rc" 2>/dev/null)" != 0 ] || [ ! -x "$bin" ]; then
      cap_bad "$v/$app: build failed: $(tail -n 3 "$work/logs/build-$v-$app.log")"
      row "$app" "$v" - - - 0 1
      continue
    fi
    (
      cd "$d" || exit 1
      echo "== $v/$app"
      env LD_LIBRARY_PATH="$CUDA_HOME/lib64" timeout 120 "$bin" >native.out 2>native.err
      nrc=$?
      # multidev.expect checks kernel activity per device, which kernel GPU
      # times give (off by default; tests/capture/multidev.test sets it too)
      ktimes=0
      [ "$app" = multidev ] && ktimes=1
      env LD_LIBRARY_PATH="$CUDA_HOME/lib64" LD_PRELOAD="$SHIM" CUDALENS_KERNEL_TIMES=$ktimes \
        CUDALENS_OUTPUT="$d/rec/$app-%p.db" timeout 120 "$bin" >shim.out 2>shim.err
      rc=$?
      check_run "$v/$app: runs natively (exit $nrc) $(head -c 200 native.err)" "$nrc"
      check_run "$v/$app: runs under the shim (exit $rc) $(head -c 200 shim.err)" "$rc"
      sed -E 's/[0-9]+\.[0-9]+ ms/N ms/' native.out >native.cmp
      sed -E 's/[0-9]+\.[0-9]+ ms/N ms/' shim.out >shim.cmp
      cmp -s native.cmp shim.cmp
      check_run "$v/$app: same output under the shim" $?
      n=$(grep -c '^cudalens:' shim.err)
      check_run "$v/$app: no cudalens messages ($n) $(grep -m 1 '^cudalens:' shim.err)" "$n"
      dbs=$(ls rec | grep '\.db$')
      n=$(echo "$dbs" | grep -c .)
      [ "$n" -eq 1 ]
      check_run "$v/$app: one recording ($n)" $?
      if [ "$n" -ge 1 ]; then
        db=$d/rec/$(echo "$dbs" | head -n 1)
        ndev=$(sed -n 's/^multidev: ok (\([0-9]*\) devices)$/\1/p' shim.out)
        peer=0
        grep -q 'peer access on' shim.out && peer=1
        cap_check "$app" "$db" "EXE=$(cd "$(dirname "$bin")" && pwd -P)/$app" \
          "PID=$(basename "$db" .db | sed 's/.*-//')" "NDEV=${ndev:-1}" "PEER=$peer"
      fi
      echo "$cap_pass $cap_fail" >counts
    ) >"$d/check.log" 2>&1
    read -r cap_pass cap_fail <"$d/counts" 2>/dev/null || cap_fail=$((cap_fail + 1))
    grep '^FAIL' "$d/check.log" | sed "s|^|  $v/$app: |" >>"$work/failures"
    db=$(ls "$d/rec/"*.db 2>/dev/null | head -n 1)
    if [ -n "$db" ]; then
      row "$app" "$v" "$(q "$db" 'SELECT count(*) FROM calls')" \
        "$(q "$db" 'SELECT count(*) FROM kernels')" \
        "$(q "$db" "SELECT count(*) FROM transfers WHERE op='copy'")" \
        $((cap_pass - p0)) $((cap_fail - f0))
    else
      row "$app" "$v" - - - $((cap_pass - p0)) $((cap_fail - f0))
    fi
  done
done

# ---- PyTorch -------------------------------------------------------------
if [ "${SKIP_TORCH:-0}" != 1 ]; then
  d=$work/torch
  mkdir -p "$d/rec"
  p0=$cap_pass
  f0=$cap_fail
  (
    cd "$d" || exit 1
    echo "== torch"
    timeout 300 "$PYTHON" "$here/torch_capture.py" >native.out 2>native.err
    nrc=$?
    env LD_PRELOAD="$SHIM" CUDALENS_OUTPUT="$d/rec/torch-%p.db" \
      timeout 300 "$PYTHON" "$here/torch_capture.py" >shim.out 2>shim.err
    rc=$?
    check_run "torch: runs natively (exit $nrc: $(tail -n 1 native.err))" "$nrc"
    check_run "torch: runs under the shim (exit $rc: $(tail -n 1 shim.err))" "$rc"
    cmp -s native.out shim.out
    check_run "torch: same output under the shim" $?
    n=$(grep -c '^cudalens:' shim.err)
    check_run "torch: no cudalens messages ($n) $(grep -m 1 '^cudalens:' shim.err)" "$n"
    dbs=$(ls rec | grep '\.db$')
    n=$(echo "$dbs" | grep -c .)
    [ "$n" -eq 1 ]
    check_run "torch: one recording ($n)" $?
    if [ "$n" -ge 1 ]; then
      db=$d/rec/$(echo "$dbs" | head -n 1)
      # shellcheck disable=SC2046
      cap_dbcheck "$db" "$here/torch.expect" $(sed -n 's/^torch_capture: //p' shim.out)
      if cap_tool "$CAP_REPORT" "$db" >torch.report.txt 2>torch.report.err; then
        cap_ok "torch: cudalens-report ran"
      else
        cap_bad "torch: cudalens-report failed: $(head -n 3 torch.report.err)"
      fi
      cap_tool "$CAP_CALLSITES" "$db" >torch.callsites 2>&1
      # a kernel name of each kind, for the log
      q "$db" "SELECT group_concat(v, ' | ') FROM (SELECT DISTINCT s.value AS v FROM kernels k JOIN strings s ON s.id=k.name LIMIT 12)" >kernel-names.txt
    fi
    echo "$cap_pass $cap_fail" >counts
  ) >"$d/check.log" 2>&1
  read -r cap_pass cap_fail <"$d/counts" 2>/dev/null || cap_fail=$((cap_fail + 1))
  grep '^FAIL' "$d/check.log" | sed "s|^|  torch: |" >>"$work/failures"
  db=$(ls "$d/rec/"*.db 2>/dev/null | head -n 1)
  if [ -n "$db" ]; then
    row torch python "$(q "$db" 'SELECT count(*) FROM calls')" \
      "$(q "$db" 'SELECT count(*) FROM kernels')" \
      "$(q "$db" "SELECT count(*) FROM transfers WHERE op='copy'")" \
      $((cap_pass - p0)) $((cap_fail - f0))
  else
    row torch python - - - $((cap_pass - p0)) $((cap_fail - f0))
  fi
fi

total_pass=$cap_pass
total_fail=$cap_fail
cat "$work/table" | tee -a "$summary"
if [ -s "$work/failures" ]; then
  say "failed checks:"
  cat "$work/failures" | tee -a "$summary"
fi
[ "$total_fail" -eq 0 ] && finish 0
finish 1

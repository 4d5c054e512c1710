#!/bin/sh
# vmm.sh - mapped memory and access rights on real GPUs (issue 20): the
# catalogue of tests/vmm (memory mapped with cuMemCreate/cuMemMap, pool
# and mapping access across two devices) checked against its // expect:
# marks like under the simulator (tests/races/check.sh, kinds *-race and
# cross-device-access; the peer programs only where there are 2 GPUs), then
# the PyTorch race cases of tests/gpu/races_torch twice: with PyTorch's
# default caching allocator and with PYTORCH_CUDA_ALLOC_CONF=
# expandable_segments:True (memory mapped 2 MiB at a time into one
# reserved range).  Each case must find its races (stream-race) in both
# modes and its fixed forms none; the table at the end puts the two modes
# side by side.
#
#   tests/gpu/vmm.sh BUILD_DIR
#
# BUILD_DIR: a built cudalens after `make check` (tests/vmm/* built), or a
# kit's build/ (tests/gpu/kit.sh).  Environment: PYTHON (python3).  Exit 0
# when everything passed; the failures are listed.
set -u
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PYTHON=${PYTHON:-python3}
CL_SHIM=$build/.libs/libcudalens.so
CL_REPORT=$build/cudalens-report
[ -f "$CL_SHIM" ] || { echo "$0: no $CL_SHIM" >&2; exit 2; }
[ -d "$build/lib-extra" ] &&
  LD_LIBRARY_PATH=$build/lib-extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
work=$(mktemp -d "${TMPDIR:-/tmp}/cl-vmm.XXXXXX") || exit 2
export CL_SHIM CL_REPORT CL_TOP_SRCDIR="$top" RACES_REAL=1 RACES_LIB_ONLY=1 \
  RACES_SRC="$top/tests/vmm" RACES_BIN="$build/tests/vmm" \
  RACES_KINDS='-race$|^cross-device-access$'
failed=""
passed=0
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')

# ---- the C catalogue -------------------------------------------------------
for src in "$top"/tests/vmm/*.cu; do
  name=$(basename "$src" .cu)
  if grep -q 'needs 2 devices' "$src" && [ "$ngpu" -lt 2 ]; then
    echo "skip: vmm/$name (needs 2 GPUs, $ngpu here)"
    continue
  fi
  mkdir -p "$work/$name"
  if (CL_TMP=$work/$name; export CL_TMP
      . "$top/tests/lib.sh"; . "$top/tests/races/check.sh"; races_check "$name") \
      >"$work/$name.log" 2>&1; then
    passed=$((passed + 1))
    echo "ok: vmm/$name"
  else
    failed="$failed vmm/$name"
    echo "FAIL: vmm/$name: $(grep -m 3 -i 'fail\|expect' "$work/$name.log" | tr '\n' ' ')"
  fi
done

# ---- PyTorch, default allocator and expandable segments ---------------------
# torch_case CONF NAME ARG MIN MAX: the stream-race findings of races_torch/
# NAME.py ARG run with PYTORCH_CUDA_ALLOC_CONF=CONF must number MIN..MAX
table=$work/table
: >"$table"
torch_case() {
  conf=$1 name=$2 arg=$3 min=$4 max=$5
  d=$work/torch-${conf:-default}-$name${arg:+-$arg}
  mkdir -p "$d"
  if ! (cd "$d" && env PYTORCH_CUDA_ALLOC_CONF="$conf" LD_PRELOAD="$CL_SHIM" \
      CUDALENS_OUTPUT="$d/$name-%p.db" timeout 300 "$PYTHON" \
      "$here/races_torch/$name.py" $arg >"$d/out" 2>"$d/err"); then
    tail -5 "$d/err" >&2
    failed="$failed torch:$name${arg:+:$arg}:${conf:-default}(run)"
    return
  fi
  n=0 mapped=0
  for db in "$d"/*.db; do
    [ -e "$db" ] || continue
    "$CL_REPORT" --format=json "$db" >"$db.json" 2>"$db.err"
    "$CL_REPORT" "$db" >"$db.txt" 2>/dev/null
    k=$("$PYTHON" -c 'import json,sys; print(sum(1 for f in json.load(open(sys.argv[1]))["findings"] if f["kind"] == "stream-race"))' "$db.json")
    n=$((n + k))
    m=$(sqlite3 "$db" "SELECT count(*) FROM memory WHERE kind = 'mapped' AND op = 'alloc'" 2>/dev/null ||
        "$PYTHON" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM memory WHERE kind = '"'"'mapped'"'"' AND op = '"'"'alloc'"'"'").fetchone()[0])' "$db")
    mapped=$((mapped + m))
  done
  printf '%-16s %-6s %-26s %3d stream-race (want %d..%d), %d mappings recorded\n' \
    "$name" "${arg:-bug}" "${conf:-default}" "$n" "$min" "$max" "$mapped" >>"$table"
  if [ "$n" -ge "$min" ] && [ "$n" -le "$max" ]; then
    passed=$((passed + 1))
  else
    failed="$failed torch:$name${arg:+:$arg}:${conf:-default}"
  fi
}
if "$PYTHON" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  for conf in "" "expandable_segments:True"; do
    torch_case "$conf" seed_race "" 1 1000
    torch_case "$conf" seed_fixed "" 0 0
    torch_case "$conf" reuse_race "" 1 1000
    torch_case "$conf" reuse_race record 0 0
    torch_case "$conf" reuse_race wait 0 0
    torch_case "$conf" compile_race "" 1 1000
    torch_case "$conf" compile_race fixed 0 0
    torch_case "$conf" train_prefetch "" 0 0
    torch_case "$conf" optimizer_race "" 1 1000
    torch_case "$conf" optimizer_race wait 0 0
  done
  echo "PyTorch race cases (case, form, PYTORCH_CUDA_ALLOC_CONF, found):"
  cat "$table"
else
  echo "skip: PyTorch cases ($PYTHON cannot import torch with CUDA)"
fi

echo "vmm.sh: $passed passed${failed:+, failed:$failed}"
if [ -n "$failed" ]; then
  echo "work directory kept: $work"
  exit 1
fi
rm -rf "$work"
exit 0

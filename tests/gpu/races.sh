#!/bin/sh
# races.sh - the race analysis on a real GPU: takes the race catalogue of
# tests/races and the conformance catalogue of tests/semantics as BUILD_DIR
# has them (make check builds them with nvcc -cudart shared for sm_90; the
# script builds what is missing), and their static-cudart builds from
# CL_GPU_KIT/static (tests/gpu/kit.sh) when CL_GPU_KIT is set; runs every
# program under the real shim and checks `cudalens-report
# --format=json` against its // expect: marks (tests/races/check.sh, as in
# `make check` under the simulator), including graph_ok, which needs CUDA
# graphs; then the PyTorch cases of tests/gpu/races_torch (when python3 can
# import torch): the documentation's missing-synchronization example must
# give a stream-race, its fix and a training loop with a prefetch stream
# (pinned DataLoader, non_blocking copies, wait_stream/record_stream) none.
#
#   tests/gpu/races.sh BUILD_DIR
#
# BUILD_DIR: a configured and built cudalens (.libs/libcudalens.so,
# cudalens-report).  Environment: CUDA_HOME (/usr/local/cuda), NVCC, ARCH
# (-arch=sm_90), PYTHON (python3).  Exit 0 when everything passed; the
# failures are listed.
set -u
if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
ARCH=${ARCH:--arch=sm_90}
PYTHON=${PYTHON:-python3}

CL_SHIM=$build/.libs/libcudalens.so
CL_REPORT=$build/cudalens-report
[ -f "$CL_SHIM" ] || { echo "$0: no $CL_SHIM (build first)" >&2; exit 2; }
[ -x "$CL_REPORT" ] || { echo "$0: no $CL_REPORT" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cl-races.XXXXXX") || exit 2
bin=$work/bin
mkdir -p "$bin"
export CL_SHIM CL_REPORT CL_TOP_SRCDIR="$top" RACES_SRC="$top/tests/races" \
  RACES_BIN="$bin" RACES_REAL=1 RACES_LIB_ONLY=1

failed=""
passed=0
note() { echo "$*"; }

# ---- the catalogues ---------------------------------------------------------
# tests/races and tests/semantics; each program as the build tree has it
# (nvcc -cudart shared, made by make check) or built here, and, when
# CL_GPU_KIT has them (tests/gpu/kit.sh), linked with the static cudart
for suite in races semantics; do
  for variant in shared static; do
    vbin=$bin/$suite-$variant
    mkdir -p "$vbin"
    cp "$build/tests/$suite/"lib*.so "$vbin/" 2>/dev/null # `// needs:` libraries
    if [ "$variant" = static ]; then
      [ -d "${CL_GPU_KIT:-/nonexistent}/static/$suite" ] || continue
      vbin=$CL_GPU_KIT/static/$suite
    fi
    for src in "$top"/tests/$suite/*.cu; do
      name=$(basename "$src" .cu)
      [ "$variant" = static ] && grep -q '^// needs:' "$src" && continue
      [ -x "$vbin/$name" ] || cp "$build/tests/$suite/$name" "$vbin/$name" 2>/dev/null ||
        $NVCC -g -lineinfo $ARCH -cudart shared -I"$top/tests/races" \
          -I"$top/tests/apps" "$src" -o "$vbin/$name" -lpthread 2>"$work/$name.nvcc" || {
        cat "$work/$name.nvcc" >&2
        failed="$failed $suite/$name/$variant(build)"
        continue
      }
      mkdir -p "$work/$suite-$variant/$name"
      if (CL_TMP=$work/$suite-$variant/$name RACES_SRC=$top/tests/$suite RACES_BIN=$vbin
          export CL_TMP RACES_SRC RACES_BIN
          . "$top/tests/lib.sh"; . "$top/tests/races/check.sh"; races_check "$name") \
          >"$work/$suite-$variant/$name.log" 2>&1; then
        passed=$((passed + 1))
        note "ok: $suite/$name ($variant)"
      else
        failed="$failed $suite/$name/$variant"
        note "FAIL: $suite/$name ($variant): $(grep -m 3 -i 'fail' "$work/$suite-$variant/$name.log" | tr '\n' ' ')"
      fi
    done
  done
done

# ---- PyTorch -------------------------------------------------------------------
# [TORCH_ARGS=ARGS] torch_case NAME MIN_STREAM_RACES MAX_STREAM_RACES
torch_case() {
  name=$1 min=$2 max=$3
  d=$work/torch-$name${TORCH_ARGS:+-$TORCH_ARGS}
  mkdir -p "$d"
  # shellcheck disable=SC2086
  if ! (cd "$d" && env LD_PRELOAD="$CL_SHIM" CUDALENS_OUTPUT="$d/$name-%p.db" \
      "$PYTHON" "$here/races_torch/$name.py" ${TORCH_ARGS:-} >"$d/out" 2>"$d/err"); then
    tail -20 "$d/err" >&2
    failed="$failed torch:$name(run)"
    return
  fi
  n=0
  for db in "$d"/*.db; do
    [ -e "$db" ] || continue
    "$CL_REPORT" --format=json "$db" >"$db.json" 2>"$db.err"
    "$CL_REPORT" --format=text "$db" >"$db.txt" 2>/dev/null
    k=$("$PYTHON" - "$db.json" <<'PY'
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
for f in fs:
    if "race" in f["kind"]:
        loc = f.get("location") or {}
        print("  %s x%d %s:%s: %s" % (f["kind"], f["count"], loc.get("file"),
              loc.get("line"), f["message"][:200]), file=sys.stderr)
print(sum(1 for f in fs if f["kind"] == "stream-race"))
PY
)
    n=$((n + k))
  done
  if [ "$n" -ge "$min" ] && [ "$n" -le "$max" ]; then
    note "ok: torch $name ${TORCH_ARGS:-}: $n stream-race finding(s) (expected $min..$max)"
    passed=$((passed + 1))
  else
    note "FAIL: torch $name ${TORCH_ARGS:-}: $n stream-race finding(s), expected $min..$max (reports in $d)"
    failed="$failed torch:$name"
  fi
}

if "$PYTHON" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  torch_case seed_race 1 1000
  torch_case seed_fixed 0 0
  torch_case train_prefetch 0 0
  # the caching allocator's reuse without record_stream (issue 9):
  # reuse_race.py bug must race, its two fixes must not
  torch_case reuse_race 1 1000
  TORCH_ARGS=record torch_case reuse_race 0 0
  TORCH_ARGS=wait torch_case reuse_race 0 0
  # an optimizer step that does not wait for its gradients: the race is
  # through words past a launch's 16th (the multi-tensor structure)
  torch_case optimizer_race 1 1000
  TORCH_ARGS=fused torch_case optimizer_race 1 1000
  TORCH_ARGS=wait torch_case optimizer_race 0 0
  # and one captured in a CUDA graph, its parameters copied on a side
  # stream without waiting for the replay
  torch_case graph_optimizer 1 1000
  TORCH_ARGS=wait torch_case graph_optimizer 0 0
  # a CUDA-graph replay racing with the refill of its static input (issue 20)
  torch_case graph_replay 1 1000
  TORCH_ARGS=wait torch_case graph_replay 0 0
else
  note "skip: PyTorch cases ($PYTHON cannot import torch with CUDA)"
fi

echo "races.sh: $passed passed${failed:+, failed:$failed}"
if [ -n "$failed" ]; then
  echo "work directory kept: $work"
  exit 1
fi
rm -rf "$work"
exit 0

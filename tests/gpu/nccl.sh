#!/bin/sh
# nccl.sh - NCCL under cudalens on a machine with two GPUs (issue 21), from a
# kit built elsewhere (tests/gpu/kit.sh with NCCL_HOME: the programs of
# tests/nccl built against the real nccl.h, in KIT/nccl).
#
#   tests/gpu/nccl.sh KIT_DIR OUTDIR
#
# 1. The C programs of tests/nccl with the real NCCL (the nvidia-nccl wheel
#    of PYTHON's environment): the races between a collective and a kernel
#    or a free and their twins (`// expect:` marks, tests/races/check.sh),
#    NCCL dlopen'd late, a process without NCCL; ranks_mismatch and
#    ranks_ok as two processes on GPUs 0 and 1 (CUDA_VISIBLE_DEVICES).
# 2. PyTorch under `cudalens run -- torchrun --nproc_per_node=2`
#    (tests/gpu/nccl/*.py): DDP and FSDP training (no error), the async
#    all-reduce used before work.wait() (a stream-race at the marked line,
#    labelled "in ranks 0-1") and its twin (no error), ranks that disagree
#    (a collective-mismatch at the marked line, in ranks 0-1) and the twin.
# 3. Device selection as the seeds show it (tests/gpu/nccl/devices.py:
#    cuda:0, torch.cuda.device(1), .to('cuda:1'), set_device), plain and with
#    CUDA_VISIBLE_DEVICES=1,0: every kernel, memset and copy recorded on the
#    device of its memory (or through peer access), ordinals mapped to the
#    right GPUs (devices_check.py), no error.
# 4. The overhead: DDP training native and under cudalens, side by side
#    (OUTDIR/overhead.txt).
# OUTDIR/summary.txt lists every check; exit 0 when all passed.
# Environment: PYTHON (/opt/torch/.venv/bin/python).
set -u
[ $# -eq 2 ] || { echo "usage: $0 KIT_DIR OUTDIR" >&2; exit 2; }
kit=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$kit/build
PYTHON=${PYTHON:-/opt/torch/.venv/bin/python}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
CL_SHIM=$build/.libs/libcudalens.so
CL_REPORT=$build/cudalens-report
CL_LAUNCHER=$build/cudalens
LD_LIBRARY_PATH=$build/lib-extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH CL_SHIM CL_REPORT
pydir=$(dirname "$(dirname "$PYTHON")")
nccl_lib=$(ls -d "$pydir"/lib/python3*/site-packages/nvidia/nccl/lib 2>/dev/null | head -n 1)
summary=$out/summary.txt
: >"$summary"
passed=0 failed=""
ok() { echo "ok: $*" | tee -a "$summary"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*" | tee -a "$summary"; failed="$failed|$*"; }

# ---- 1. the C programs -----------------------------------------------------------
if [ -z "$nccl_lib" ] || [ ! -d "$kit/nccl" ]; then
  bad "C programs: no NCCL in $pydir or no $kit/nccl (kit.sh without NCCL_HOME?)"
else
  for name in allreduce_race allreduce_event_ok group_event_early free_while_sending \
      own_kernels dlopen_nccl no_nccl ranks_mismatch ranks_ok; do
    d=$out/c/$name
    rm -rf "$d" && mkdir -p "$d"
    case $name in ranks_*) fn=nccl_ranks_check ;; *) fn=nccl_race_check ;; esac
    if (cd "$d" && CL_TMP=$d CL_TOP_SRCDIR=$top CL_TOP_BUILDDIR=$build \
        NCCL_BIN=$kit/nccl CL_NCCL_LIBDIR=$nccl_lib RACES_REAL=1 \
        CL_SHIM=$CL_SHIM CL_REPORT=$CL_REPORT CL_SIMLIB=/nonexistent \
        sh -c '. "$CL_TOP_SRCDIR/tests/lib.sh"; . "$CL_TOP_SRCDIR/tests/nccl/check.sh"; '"$fn $name") \
        >"$d.log" 2>&1; then
      ok "C $name"
    else
      bad "C $name ($(grep -m 2 FAIL "$d.log" | tr '\n' ' '); log $d.log)"
    fi
  done
fi

# ---- 2. PyTorch under torchrun --------------------------------------------------
# torchrun_case NAME SCRIPT ARGS...: records OUT/torch/NAME/*.db, reports
# them as one (OUT/torch/NAME.txt and .json)
torchrun_case() {
  name=$1
  shift
  d=$out/torch/$name
  rm -rf "$d" && mkdir -p "$d"
  (cd "$d" && timeout 300 "$CL_LAUNCHER" run -o "$d/%p.db" -- \
     "$PYTHON" -m torch.distributed.run --nproc_per_node=2 "$@") \
    >"$d.out" 2>"$d.err"
  rc=$?
  "$CL_REPORT" --format=json "$d" >"$d.json" 2>"$d.rerr"
  "$CL_REPORT" "$d" >"$d.txt" 2>>"$d.rerr"
  return $rc
}

# check_marks NAME SCRIPT [MODE]: the error findings of NAME's report against
# the `# expect: KIND` marks of SCRIPT (each in ranks 0-1); no other error.
# MODE wait or ok is a script's correct twin: its marks are the bug's, so
# none is expected there
. "$top/tests/marks.sh"
check_marks() {
  case ${3:-} in wait|ok) src=/dev/null ;; *) src=$2 ;; esac
  marks_present "$out/torch/$1.json" "$src" "0 1"
}

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$gpus" -lt 2 ]; then
  bad "PyTorch: $gpus GPU(s), two needed"
else
  for c in "ddp ddp_train.py 30" "fsdp fsdp_train.py" "async_bug async_allreduce.py bug" \
      "async_wait async_allreduce.py wait" "mismatch_bad rank_mismatch.py bad" \
      "mismatch_ok rank_mismatch.py ok"; do
    # shellcheck disable=SC2086
    set -- $c
    name=$1 script=$here/nccl/$2
    shift 2
    if ! torchrun_case "$name" "$script" "$@"; then
      bad "torch $name: the run failed (see $out/torch/$name.err)"
      continue
    fi
    if msg=$(check_marks "$name" "$script" "${1:-}" 2>&1); then
      ok "torch $name: $(grep -m 1 '^Findings' "$out/torch/$name.txt")"
    else
      bad "torch $name: $(echo "$msg" | head -5 | tr '\n' ' ')"
    fi
  done
fi

# ---- 3. device selection (the seeds): every operation on its device ------------
if [ "$gpus" -ge 2 ]; then
  buses=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | tr '\n' ' ')
  set -- $buses
  for cvd in "" "1,0"; do
    name=devices${cvd:+-cvd${cvd%%,*}}
    d=$out/torch/$name
    rm -rf "$d" && mkdir -p "$d"
    if [ -n "$cvd" ]; then want="$2 $1"; else want="$1 $2"; fi
    # shellcheck disable=SC2086
    if ! (cd "$d" && env ${cvd:+CUDA_VISIBLE_DEVICES=$cvd} CUDA_DEVICE_ORDER=PCI_BUS_ID \
        "$CL_LAUNCHER" run -o "$d/%p.db" -- "$PYTHON" "$here/nccl/devices.py") >"$d.out" 2>"$d.err"; then
      bad "torch $name: the run failed (see $d.err)"
      continue
    fi
    db=$(ls "$d"/*.db | head -n 1)
    "$CL_REPORT" --format=json "$db" >"$d.json" 2>/dev/null
    "$CL_REPORT" "$db" >"$d.txt" 2>/dev/null
    # shellcheck disable=SC2086
    if msg=$("$PYTHON" "$here/nccl/devices_check.py" "$db" $want 2>&1) &&
       "$PYTHON" -c 'import json,sys; sys.exit(any(f["severity"]=="error" for f in json.load(open(sys.argv[1]))["findings"]))' "$d.json"; then
      ok "torch $name${cvd:+ (CUDA_VISIBLE_DEVICES=$cvd)}: $(echo "$msg" | tail -n 1)"
    else
      bad "torch $name: $(echo "$msg" | head -3 | tr '\n' ' ') (report $d.txt)"
    fi
  done
fi

# ---- 4. overhead: DDP native and under cudalens ---------------------------------
if [ "$gpus" -ge 2 ]; then
  {
    echo "DDP training of a small CNN, 2 ranks, 200 steps (ms per step after 5 warm-up steps)"
    for run in native cudalens native cudalens; do
      d=$out/overhead/$run
      rm -rf "$d" && mkdir -p "$d"
      if [ $run = native ]; then
        (cd "$d" && "$PYTHON" -m torch.distributed.run --nproc_per_node=2 \
           "$here/nccl/ddp_train.py" 200 2>/dev/null)
      else
        (cd "$d" && "$CL_LAUNCHER" run -o "$d/%p.db" -- "$PYTHON" -m torch.distributed.run \
           --nproc_per_node=2 "$here/nccl/ddp_train.py" 200 2>/dev/null)
      fi | sed -n "s/^ddp_train: /$run: /p"
    done
  } >"$out/overhead.txt"
  cat "$out/overhead.txt"
fi

echo "nccl.sh: $passed passed${failed:+, failed: $failed}" | tee -a "$summary"
[ -z "$failed" ]

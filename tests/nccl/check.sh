# check.sh - sourced by the tests/nccl/*.test scripts (after tests/lib.sh):
# the NCCL programs run under the shim against the simulated CUDA runtime
# and the NCCL test double (tests/nccl/lib).
#   nccl_race_check NAME: one process; its race findings against the marks
#     of NAME.cu (tests/races/check.sh)
#   nccl_ranks_check NAME: two processes (RANK=0 and 1, sharing a unique id
#     through a file), one report of both; its collective-mismatch findings
#     against the marks of NAME.cu, every one labelled "ranks 0-1"; and the
#     same report, byte for byte, from the ranks' reduced results
# On a GPU machine (tests/gpu/nccl.sh) CL_NCCL_LIBDIR names the real NCCL
# and RACES_REAL=1 runs without the simulator.
RACES_SRC=$CL_TOP_SRCDIR/tests/nccl
RACES_BIN=${NCCL_BIN:-$CL_TOP_BUILDDIR/tests/nccl}
CL_NCCL_LIBDIR=${CL_NCCL_LIBDIR:-$CL_TOP_BUILDDIR/tests/nccl/lib}
[ -e "$CL_NCCL_LIBDIR/libnccl.so.2" ] || skip "no libnccl.so.2 in $CL_NCCL_LIBDIR"
LD_LIBRARY_PATH=$CL_NCCL_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
RACES_LIB_ONLY=1
. "$CL_TOP_SRCDIR/tests/races/check.sh"

# NAME's output under the shim is its output without it
same_output() {
  if [ -n "${RACES_REAL:-}" ]; then pre=; else pre=$CL_SIMLIB:; fi
  env LD_LIBRARY_PATH="$pre$LD_LIBRARY_PATH" "$RACES_BIN/$1" >"$CL_TMP/$1.native" 2>&1 ||
    fail "$1 fails without the shim"
  cmp -s "$CL_TMP/$1.native" "$CL_TMP/$1.out" ||
    { diff "$CL_TMP/$1.native" "$CL_TMP/$1.out" >&2; fail "$1: output differs under the shim"; }
  echo "ok: $1 prints the same with and without the shim"
}

nccl_race_check() { races_check "$1"; }

nccl_ranks_check() {
  name=$1
  src=$RACES_SRC/$name.cu
  [ -x "$RACES_BIN/$name" ] || skip "$name not built (no nvcc?)"
  marks_can_read || skip "neither jq nor python3"
  rm -rf "$CL_TMP/$name.d" && mkdir -p "$CL_TMP/$name.d" || fail "mkdir"
  idfile=$CL_TMP/$name.d/id
  if [ -n "${RACES_REAL:-}" ]; then pre=; else pre=$CL_SIMLIB:; fi
  for rank in 0 1; do
    # on GPUs, each rank its own (NCCL refuses two ranks on one GPU)
    if [ -n "${RACES_REAL:-}" ]; then cvd=CUDA_VISIBLE_DEVICES=$rank; else cvd=CL_NO_CVD=1; fi
    env LD_LIBRARY_PATH="$pre$LD_LIBRARY_PATH" RANK=$rank "$cvd" \
      LD_PRELOAD="$CL_SHIM" CUDALENS_OUTPUT="$CL_TMP/$name.d/rank$rank-%p.db" \
      "$RACES_BIN/$name" "$idfile" >"$CL_TMP/$name.out$rank" 2>"$CL_TMP/$name.err$rank" &
  done
  wait
  for rank in 0 1; do
    grep -q "rank $rank done" "$CL_TMP/$name.out$rank" ||
      { cat "$CL_TMP/$name.err$rank" >&2; fail "$name rank $rank failed"; }
  done
  [ "$(ls "$CL_TMP/$name.d"/*.db | wc -l)" -eq 2 ] || fail "$name: not two recordings"
  "$CL_REPORT" --format=json "$CL_TMP/$name.d" >"$CL_TMP/$name.json" 2>"$CL_TMP/$name.rerr" ||
    [ $? -eq 1 ] || { cat "$CL_TMP/$name.rerr" >&2; fail "cudalens-report failed"; }
  "$CL_REPORT" "$CL_TMP/$name.d" >"$CL_TMP/$name.txt" 2>/dev/null
  # the marks (tests/marks.sh), each reported in ranks 0 and 1
  marks_got "$CL_TMP/$name.json" "$name.cu" '^collective-mismatch$' >"$CL_TMP/$name.got"
  marks_findings "$CL_TMP/$name.json" |
    awk -F '\t' '$1 == "collective-mismatch" && $5 != "0 1" { print $1, $3, "ranks", $5 }' \
    >>"$CL_TMP/$name.got"
  marks_want "$src" | grep '^collective-mismatch ' >"$CL_TMP/$name.want"
  if ! cmp -s "$CL_TMP/$name.want" "$CL_TMP/$name.got"; then
    echo "--- expected (kind line) / +++ reported (ranks when not 0 1):" >&2
    diff -u "$CL_TMP/$name.want" "$CL_TMP/$name.got" >&2
    cat "$CL_TMP/$name.txt" >&2
    fail "$name: collective-mismatch findings differ from the marks"
  fi
  if [ -s "$CL_TMP/$name.want" ]; then
    grep -A8 "\[collective-mismatch\]" "$CL_TMP/$name.txt" | grep -q "^  in ranks 0-1$" ||
      { cat "$CL_TMP/$name.txt" >&2; fail "$name: not labelled 'in ranks 0-1'"; }
  fi
  # the same report from the ranks' reduced results (cudalens-report
  # --reduce): the same bytes, so the same collective-mismatch findings
  "$CL_REPORT" --reduce "$CL_TMP/$name.d" 2>"$CL_TMP/$name.rerr" ||
    { cat "$CL_TMP/$name.rerr" >&2; fail "$name: cudalens-report --reduce failed"; }
  [ "$(ls "$CL_TMP/$name.d"/*.cldr | wc -l)" -eq 2 ] || fail "$name: not two reduced results"
  "$CL_REPORT" --format=json "$CL_TMP/$name.d" >"$CL_TMP/$name.rjson" 2>"$CL_TMP/$name.rerr"
  "$CL_REPORT" "$CL_TMP/$name.d" >"$CL_TMP/$name.rtxt" 2>>"$CL_TMP/$name.rerr"
  [ ! -s "$CL_TMP/$name.rerr" ] || { cat "$CL_TMP/$name.rerr" >&2; fail "$name: a reduced result was not used"; }
  cmp -s "$CL_TMP/$name.json" "$CL_TMP/$name.rjson" && cmp -s "$CL_TMP/$name.txt" "$CL_TMP/$name.rtxt" ||
    { diff "$CL_TMP/$name.txt" "$CL_TMP/$name.rtxt" >&2; fail "$name: the report from reduced results differs"; }
  # no other error
  marks_findings "$CL_TMP/$name.json" |
    awk -F '\t' '$4 == "error" && $1 != "collective-mismatch" { print $1, $6; bad = 1 }
      END { exit bad }' >&2 || fail "$name: other errors"
  echo "ok: $name"
}

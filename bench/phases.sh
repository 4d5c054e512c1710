#!/bin/sh
# phases.sh - in-process pairing (issue 25; shim/benchphase.c): runs one
# benchmark once under libcudalens.so with CUDALENS_BENCH_PHASES=1, reads
# the `block PHASE SECONDS` lines it prints (bench/phases.py,
# bench/phases.cuh: 0 off, 1 floor, 2 on), takes each three consecutive
# blocks (one of each phase, in the shim's rotation) as a round, and prints
# through paired_ci.awk the median paired ratios with their 95% intervals:
# cudalens/off, floor/off and cudalens/floor, then each phase's median
# block.  Adjacent blocks of one process vary far less than separate
# processes do (bench/README.md, "In-process pairing"); off is the program
# with CUPTI detached (cuptiFinalize).
#   bench/phases.sh SHIM CMD [ARGS...]
#   e.g. bench/phases.sh build/.libs/libcudalens.so \
#          python3 bench/torch_train.py resnet18 600 5
#   bench/phases.sh --blocks FILE...
# reads the blocks that KEEP kept (one file or several, each process's
# blocks ended by a line "run") instead of running anything, and prints
# the same: on a GPU machine whose call may be cut short, KEEP a file
# under $OUT and read it afterwards, as far as it came.
# A process's rounds share whatever makes one process differ from another
# (where its memory lies, its cores, the GPU's clocks), and the sign
# test's interval takes rounds for independent: pooled, they would hide
# such a difference.  So with two or more processes, each ratio is also
# given across processes (the median of each process's median, its
# interval over processes: 6 or more for any); on the H100 (resnet18,
# bench/README.md, session 11) the two agreed.  BUDGET=SECONDS: run the
# benchmark again while a ratio across processes is inconclusive (wider
# than +-2%, or fewer than 6 processes), until SECONDS have passed since
# the first started (a process under way is not cut); the pooled lines
# (every round of every process; a round never spans two) are printed
# too, as "within processes".  KEEP=FILE keeps the block lines, each
# process's written as it ends (a line "run" after them): what a run cut
# short had.  The recordings are deleted.  NATIVE=1
# also runs the benchmark once without the shim (CUDALENS_BENCH_PHASES=
# native: the same blocks, timed, printed as phase 3) and prints its
# median block beside off's: two processes, so the ratio of their medians
# has the spread of separate processes, but it shows whether off (CUPTI
# detached) runs as native does.  PROCESSES=FILE writes each process's
# median cudalens/floor to FILE, one a line in the order the processes ran
# (bench/ladder.sh pair).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
stats=$(cat "$here/stats.awk") || exit 2
usage="usage: phases.sh SHIM CMD [ARGS...] | phases.sh --blocks FILE..."
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/blocks"
runs=0
if [ "$1" = --blocks ]; then
  shift
  shim=
  for f in "$@"; do
    [ -r "$f" ] || { echo "phases.sh: cannot read $f" >&2; exit 2; }
    grep -q '^block [0-3] [0-9.e+-]*$' "$f" || {
      echo "phases.sh: $f holds no block lines (KEEP's)" >&2; exit 2; }
    cat "$f" >>"$tmp/blocks"
    # a process cut short has no "run" line yet: it ends with its file
    # (native's blocks, after the last process's line, are none)
    awk '$1 == "run" { p = 0 } /^block [0-2] / { p = 1 } END { exit p }' "$f" ||
      echo run >>"$tmp/blocks"
  done
  runs=$(grep -c '^run$' "$tmp/blocks")
else
  shim=$1
  shift
  [ -r "$shim" ] || { echo "phases.sh: no shim at $shim" >&2; exit 2; }
fi

# one process of the benchmark under the shim: its blocks, then a line
# "run" (rounds do not span processes)
run_once() {
  rc=0
  env LD_PRELOAD="$shim" CUDALENS_BENCH_PHASES=1 \
    CUDALENS_OUTPUT="$tmp/rec-%p.db" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  rm -f "$tmp"/rec-*.db*
  if [ "$rc" -ne 0 ]; then
    echo "phases.sh: the benchmark failed (exit $rc):" >&2
    tail -5 "$tmp/err" >&2
    exit 1
  fi
  grep '^block [0-2] ' "$tmp/out" >>"$tmp/blocks" || {
    echo "phases.sh: the benchmark printed no blocks (does it take" \
      "CUDALENS_BENCH_PHASES?)" >&2
    exit 1
  }
  echo run >>"$tmp/blocks"
  runs=$((runs + 1))
  [ -z "${KEEP:-}" ] || cp "$tmp/blocks" "$KEEP"
}

# the rounds' three ratios (each round's pair, with its process's number,
# in $tmp/RATIO), their intervals over rounds in $tmp/ci and, from two
# processes on, over processes in $tmp/across
pair() {
  rm -f "$tmp/on_off" "$tmp/floor_off" "$tmp/on_floor"
  awk -v dir="$tmp" '
    $1 == "run" { delete seen; k = 0; proc++; next }
    $2 == 3 { next }
    { t[$2] = $3; seen[$2]++; c++; k++ }
    k % 3 == 0 {
      if (seen[0] != 1 || seen[1] != 1 || seen[2] != 1) {
        printf "phases.sh: blocks %d-%d are not one of each phase\n", c - 2, c > "/dev/stderr"
        exit 1
      }
      print t[0], t[2], proc + 0 > (dir "/on_off"); print t[0], t[1], proc + 0 > (dir "/floor_off")
      print t[1], t[2], proc + 0 > (dir "/on_floor")
      delete seen
    }' "$tmp/blocks"
  within=
  [ "$runs" -lt 2 ] || within=" within processes"
  : >"$tmp/ci"
  : >"$tmp/across"
  for r in cudalens/off:on_off floor/off:floor_off cudalens/floor:on_floor; do
    awk -v label="${r%%:*}$within" -f "$here/stats.awk" -f "$here/paired_ci.awk" \
      "$tmp/${r#*:}" >>"$tmp/ci"
    # each process's median ratio, as a pair "1 RATIO"
    awk '$1 > 0 && $2 > 0 { print $3, $2 / $1 }' "$tmp/${r#*:}" | sort -k1,1n |
      awk "$stats"'
        $1 != p { if (n) print 1, median(v, n); p = $1; n = 0 } { v[++n] = $2 }
        END { if (n) print 1, median(v, n) }' >"$tmp/procs"
    [ -z "${PROCESSES:-}" ] || [ "$r" != cudalens/floor:on_floor ] ||
      awk '{ print $2 }' "$tmp/procs" >"$PROCESSES"
    [ "$runs" -lt 2 ] ||
      awk -v label="${r%%:*} across processes" -v unit=processes \
        -f "$here/stats.awk" -f "$here/paired_ci.awk" "$tmp/procs" >>"$tmp/across"
  done
}

began=$(date +%s)
[ -z "$shim" ] || run_once "$@"
pair
# (one process: nothing across processes yet, so run another)
while [ -n "$shim" ] && [ -n "${BUDGET:-}" ] &&
  { [ "$runs" -lt 2 ] || grep -q inconclusive "$tmp/across"; } &&
  [ $(($(date +%s) - began)) -lt "$BUDGET" ]; do
  run_once "$@"
  pair
done
# kept blocks: native's (phase 3) are shown when there are some
[ -n "$shim" ] || ! grep -q '^block 3 ' "$tmp/blocks" || NATIVE=kept
if [ -n "$shim" ] && [ -n "${NATIVE:-}" ]; then
  rc=0
  env CUDALENS_BENCH_PHASES=native "$@" >"$tmp/nout" 2>"$tmp/nerr" || rc=$?
  [ "$rc" -eq 0 ] || { echo "phases.sh: the native run failed (exit $rc):" >&2
    tail -5 "$tmp/nerr" >&2; exit 1; }
  grep '^block 3 ' "$tmp/nout" >>"$tmp/blocks" || {
    echo "phases.sh: the native run printed no blocks" >&2; exit 1; }
fi
[ -z "${KEEP:-}" ] || cp "$tmp/blocks" "$KEEP"
cat "$tmp/ci" "$tmp/across"
[ "$runs" -eq 1 ] || echo "(rounds of $runs processes)"
for p in 0 1 2 3; do
  [ "$p" -lt 3 ] || [ -n "${NATIVE:-}" ] || continue
  awk -v p="$p" '$2 == p { print $3 }' "$tmp/blocks" |
    awk -v name="$(echo off floor on native | cut -d' ' -f$((p + 1)))" "$stats"'
      { v[++n] = $1 } END { printf "%s: median block %.4f s of %d\n", name, median(v, n), n }'
done | tee "$tmp/medians"
[ -z "${NATIVE:-}" ] ||
  awk '{ m[$1] = $4 } END { printf "off/native (medians of two processes): %.3f\n", m["off:"] / m["native:"] }' "$tmp/medians"

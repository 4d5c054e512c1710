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
# BUDGET=SECONDS: while an interval is inconclusive (wider than +-2%),
# run the benchmark again, pooling the rounds of every process (a round
# never spans two), until SECONDS have passed since the first started (a
# process under way is not cut).  KEEP=FILE keeps the block lines (a line
# "run" after each process's); the recordings are deleted.  NATIVE=1
# also runs the benchmark once without the shim (CUDALENS_BENCH_PHASES=
# native: the same blocks, timed, printed as phase 3) and prints its
# median block beside off's: two processes, so the ratio of their medians
# has the spread of separate processes, but it shows whether off (CUPTI
# detached) runs as native does.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shim=${1:?usage: phases.sh SHIM CMD [ARGS...]}
shift
[ $# -gt 0 ] || { echo "usage: phases.sh SHIM CMD [ARGS...]" >&2; exit 2; }
[ -r "$shim" ] || { echo "phases.sh: no shim at $shim" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/blocks"
runs=0

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
}

# the rounds' three ratios, and their intervals in $tmp/ci
pair() {
  rm -f "$tmp/on_off" "$tmp/floor_off" "$tmp/on_floor"
  awk -v dir="$tmp" '
    $1 == "run" { delete seen; k = 0; next }
    $2 == 3 { next }
    { t[$2] = $3; seen[$2]++; c++; k++ }
    k % 3 == 0 {
      if (seen[0] != 1 || seen[1] != 1 || seen[2] != 1) {
        printf "phases.sh: blocks %d-%d are not one of each phase\n", c - 2, c > "/dev/stderr"
        exit 1
      }
      print t[0], t[2] > (dir "/on_off"); print t[0], t[1] > (dir "/floor_off")
      print t[1], t[2] > (dir "/on_floor")
      delete seen
    }' "$tmp/blocks"
  {
    awk -v label=cudalens/off -f "$here/paired_ci.awk" "$tmp/on_off"
    awk -v label=floor/off -f "$here/paired_ci.awk" "$tmp/floor_off"
    awk -v label=cudalens/floor -f "$here/paired_ci.awk" "$tmp/on_floor"
  } >"$tmp/ci"
}

began=$(date +%s)
run_once "$@"
pair
while [ -n "${BUDGET:-}" ] && grep -q inconclusive "$tmp/ci" &&
  [ $(($(date +%s) - began)) -lt "$BUDGET" ]; do
  run_once "$@"
  pair
done
if [ -n "${NATIVE:-}" ]; then
  rc=0
  env CUDALENS_BENCH_PHASES=native "$@" >"$tmp/nout" 2>"$tmp/nerr" || rc=$?
  [ "$rc" -eq 0 ] || { echo "phases.sh: the native run failed (exit $rc):" >&2
    tail -5 "$tmp/nerr" >&2; exit 1; }
  grep '^block 3 ' "$tmp/nout" >>"$tmp/blocks" || {
    echo "phases.sh: the native run printed no blocks" >&2; exit 1; }
fi
[ -z "${KEEP:-}" ] || cp "$tmp/blocks" "$KEEP"
cat "$tmp/ci"
[ "$runs" -eq 1 ] || echo "(rounds of $runs processes)"
for p in 0 1 2 3; do
  [ "$p" -lt 3 ] || [ -n "${NATIVE:-}" ] || continue
  awk -v p="$p" '$2 == p { print $3 }' "$tmp/blocks" | sort -g |
    awk -v name="$(echo off floor on native | cut -d' ' -f$((p + 1)))" \
      '{ v[++n] = $1 } END { printf "%s: median block %.4f s of %d\n", name, n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, n }'
done | tee "$tmp/medians"
[ -z "${NATIVE:-}" ] ||
  awk '{ m[$1] = $4 } END { printf "off/native (medians of two processes): %.3f\n", m["off:"] / m["native:"] }' "$tmp/medians"

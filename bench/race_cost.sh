#!/bin/sh
# race_cost.sh - what the race analysis costs in cudalens-report: builds the
# synthetic 200,000-launch recording of bench/race_synth.sql (with the
# build's tests/recordings/sql2db) and times `cudalens-report --format=json`
# on it (best of RUNS, default 3), printing launches per second.  No GPU
# needed.
#
#   bench/race_cost.sh BUILD_DIR [RUNS]
set -eu
build=$(cd "$1" && pwd)
runs=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cl-racecost.XXXXXX")
trap 'rm -rf "$work"' EXIT
make -C "$build" tests/recordings/sql2db >/dev/null
"$build/tests/recordings/sql2db" "$work/synth.db" "$here/race_synth.sql"
launches=$(sqlite3 "$work/synth.db" 'SELECT count(*) FROM kernels')
calls=$(sqlite3 "$work/synth.db" 'SELECT count(*) FROM calls')
best=
i=0
while [ "$i" -lt "$runs" ]; do
  t0=$(date +%s.%N)
  "$build/cudalens-report" --format=json "$work/synth.db" >"$work/out.json" || [ $? -eq 1 ]
  t1=$(date +%s.%N)
  t=$(echo "$t1 - $t0" | bc)
  if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" -eq 1 ]; then best=$t; fi
  i=$((i + 1))
done
races=$(grep -o '"kind": *"[a-z-]*race"' "$work/out.json" | wc -l)
echo "cudalens-report on $launches launches ($calls calls): best of $runs: ${best}s," \
  "$(echo "$launches / $best" | bc) launches/s, $races race finding(s)"

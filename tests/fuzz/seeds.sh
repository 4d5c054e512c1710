#!/bin/sh
# seeds.sh - the seed recordings of the fuzzer (make fuzz):
#   seeds.sh SRCDIR BUILDDIR OUTDIR
# the hand-written recordings of tests/recordings (built with sql2db) and,
# when the shim, the simulated CUDA runtime and the sample apps are built
# (make check builds them), one recording of each sample app run under the
# shim against the simulated runtime.  Prints how many of each it made.
set -u
src=$1 build=$2 out=$3
rm -rf "$out" && mkdir -p "$out" || exit 1
n=0
for sql in "$src"/tests/recordings/*.sql; do
  name=$(basename "$sql" .sql)
  case $name in extreme|graphs) continue ;; notrec) bare=--bare ;; *) bare= ;; esac
  "$build/tests/recordings/sql2db" $bare "$out/rec-$name.db" "$sql" || exit 1
  n=$((n + 1))
done
"$build/tests/recordings/sql2db" "$out/rec-extreme.db" \
  "$src/tests/recordings/small.sql" "$src/tests/recordings/extreme.sql" || exit 1
n=$((n + 1))
"$build/tests/recordings/sql2db" "$out/rec-graphs.db" \
  "$src/tests/recordings/small.sql" "$src/tests/recordings/graphs.sql" || exit 1
n=$((n + 1))
echo "seeds.sh: $n hand-written recordings"

# reduced results (.cldr): of each hand-written recording the report takes,
# and of a job of three generated ranks (rank 1's all-reduce of step 4
# longer), for the fuzzer's merge runs
for r in 0 1 2; do
  mis=
  [ "$r" -ne 1 ] || mis="--mismatch 4"
  # shellcheck disable=SC2086
  "$build/bench/gen_recording" --layers 2 --seed $((r + 1)) --rank $r \
    --nranks 3 $mis "$out/rank$r.db" 3000 >/dev/null || exit 1
done
for db in "$out"/rec-*.db "$out"/rank?.db; do
  "$build/cudalens-report" --reduce "$db" >/dev/null 2>&1
done
rm -f "$out"/rank?.db
echo "seeds.sh: $(ls "$out" | grep -c '\.cldr$') reduced results"

shim=$build/.libs/libcudalens.so simlib=$build/tests/sim/lib
if [ ! -e "$shim" ] || [ ! -e "$simlib/libcudart.so.13" ]; then
  echo "seeds.sh: shim or simulated runtime not built (make check): no recorded seeds"
  exit 0
fi
m=0
for dir in apps races transfers hostsync; do
  for app in "$build/tests/$dir"/*; do
    [ -f "$app" ] && [ -x "$app" ] || continue
    case $app in *.sh | *.test | *.fatbin) continue ;; esac
    name=$dir-$(basename "$app")
    env LD_LIBRARY_PATH="$simlib" LD_PRELOAD="$shim" \
      CUDALENS_OUTPUT="$out/$name-%p.db" timeout 60 "$app" >/dev/null 2>&1
    m=$((m + 1))
  done
done
echo "seeds.sh: $(ls "$out" | grep -v '^rec-' | grep -c '\.db$') recordings of $m sample apps"

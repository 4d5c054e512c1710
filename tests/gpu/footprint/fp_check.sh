#!/bin/sh
# fp_check.sh - the GPU check of issue 23's footprints: for each case of
# fp_races.cu, `cudalens run --footprint` (a run under
# libcudalens-footprint.so, then one under the recorder), then the report's
# race findings without and with the footprints, against what each case
# must give:
#   shared   without: shared-argument-race   with: stream-race
#   halves   without: nothing                with: nothing
#   gather   without: nothing                with: indirect-race
#   gemm     without: nothing                with: indirect-race
#   tests/gpu/footprint/fp_check.sh [DIR]
# DIR (default: this script's folder) holds bin/cudalens,
# bin/cudalens-report, lib/libcudalens.so, lib/libcudalens-sqlite.so,
# lib/libcudalens-footprint.so, lib/cudalens-footprint-patches.fatbin and
# fp_races (nvcc -arch=sm_90 -cudart shared fp_races.cu -lcublas -lpthread), and
# perhaps sanitizer/libsanitizer-public.so (used when the toolkit has none).
# Results in DIR/out (OUT): per case the log, the recordings, the footprint
# file and both reports; one "ok:"/"FAIL:" line per check.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=$(cd "${1:-$here}" && pwd) || exit 2
bin=${CUDALENS_BIN:-$dir/bin}
out=${OUT:-$dir/out}
if [ -z "${CUDALENS_SANITIZER_LIB:-}" ] &&
   [ ! -e "${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer/libsanitizer-public.so" ] &&
   [ -e "$dir/sanitizer/libsanitizer-public.so" ]; then
  CUDALENS_SANITIZER_LIB=$dir/sanitizer/libsanitizer-public.so
  export CUDALENS_SANITIZER_LIB
fi
# these, not an installed cudalens
CUDALENS_SHIM=${CUDALENS_SHIM:-$dir/lib/libcudalens.so}
CUDALENS_REPORT=${CUDALENS_REPORT:-$bin/cudalens-report}
CUDALENS_FOOTPRINT_LIB=${CUDALENS_FOOTPRINT_LIB:-$dir/lib/libcudalens-footprint.so}
export CUDALENS_SHIM CUDALENS_REPORT CUDALENS_FOOTPRINT_LIB
kinds() { # the race kinds of a JSON report, sorted, space-separated
  grep -o '"kind": *"[a-z-]*-race"' "$1" | sed 's/.*"\([a-z-]*\)"$/\1/' |
    sort -u | tr '\n' ' ' | sed 's/ $//'
}
fails=0
check() { # CASE WHAT GOT WANT
  if [ "$3" = "$4" ]; then echo "ok: $1 $2: '${3}'"; else
    echo "FAIL: $1 $2: got '$3', want '$4'"; fails=$((fails + 1)); fi
}
for c in shared:shared-argument-race:stream-race halves:: gather::indirect-race \
         gemm::indirect-race; do
  mode=${c%%:*} rest=${c#*:}
  without=${rest%%:*} with=${rest#*:}
  d=$out/$mode
  rm -rf "$d" && mkdir -p "$d"
  timeout 300 "$bin/cudalens" run --footprint -o "$d/r-%p.db" -- "$dir/fp_races" "$mode" \
    >"$d/log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: $mode: cudalens run exited $rc"; cat "$d/log"; fails=$((fails + 1)); continue; }
  fp=$d/cudalens-footprints.clfp
  [ -s "$fp" ] || { echo "FAIL: $mode: no footprint file"; cat "$d/log"; fails=$((fails + 1)); continue; }
  db=$(ls "$d"/r-*.db | head -n 1)
  "$bin/cudalens-report" --format=json "$db" >"$d/without.json" 2>"$d/without.err"
  "$bin/cudalens-report" --format=json --footprints="$fp" "$db" >"$d/with.json" 2>"$d/with.err"
  "$bin/cudalens-report" --footprints="$fp" "$db" >"$d/with.txt" 2>&1
  check "$mode" "without footprints" "$(kinds "$d/without.json")" "$without"
  check "$mode" "with footprints" "$(kinds "$d/with.json")" "$with"
  if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 "$fp" "SELECT 'kernel', * FROM fp_kernels; SELECT 'range', * FROM fp_ranges;
                   SELECT 'unattributed', * FROM fp_unattributed;" >"$d/footprints.txt"
    sed "s/^/  $mode: /" "$d/footprints.txt"
  fi
done
echo "$fails failed"
[ "$fails" -eq 0 ]

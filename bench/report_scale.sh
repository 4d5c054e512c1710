#!/bin/sh
# report_scale.sh - what cudalens-report costs on large recordings: for each
# number of calls (default 1000000 3000000 10000000) writes a recording
# shaped like a PyTorch training run with bench/gen_recording (built in
# BUILD_DIR by `make bench/gen_recording`), times `cudalens-report` on it
# with /usr/bin/time (GNU time: wall and CPU seconds, peak resident
# memory) and prints one table row each, then the exponent k of
# time ~ events^k fitted (least squares on the logarithms) over the CPU
# times.  No GPU needed.  REPORT= picks another cudalens-report (an older
# build, to compare); KEEP=1 keeps the recordings (in TMPDIR) for reruns.
#
#   bench/report_scale.sh BUILD_DIR [EVENTS...]
set -eu
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [EVENTS...]" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
[ $# -ge 1 ] || set -- 1000000 3000000 10000000
report=${REPORT:-$build/cudalens-report}
[ -x /usr/bin/time ] || { echo "$0: needs GNU time (/usr/bin/time)" >&2; exit 2; }
make -C "$build" bench/gen_recording >/dev/null
work=${TMPDIR:-/tmp}/cl-reportscale
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
printf '| events | DB size (MB) | wall (s) | CPU (s) | peak RSS (MB) |\n'
printf '|---:|---:|---:|---:|---:|\n'
fit=
for n in "$@"; do
  db=$work/rec-$n.db
  [ -s "$db" ] || "$build/bench/gen_recording" "$db" "$n" >/dev/null
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$report" "$db" >/dev/null ||
    [ $? -eq 1 ]
  read -r wall user sys rss <"$work/time"
  cpu=$(echo "$user $sys" | awk '{ printf "%.2f", $1 + $2 }')
  mb=$(( $(wc -c <"$db") / 1000000 ))
  printf '| %s | %s | %s | %s | %s |\n' "$n" "$mb" "$wall" "$cpu" $((rss / 1024))
  fit="$fit $n $cpu"
done
# least squares slope of log(cpu) over log(events)
echo "$fit" | awk '{ for (i = 1; i < NF; i += 2) { x = log($i); y = log($(i+1));
  n++; sx += x; sy += y; sxx += x * x; sxy += x * y } }
  END { if (n > 1) printf "exponent (CPU time ~ events^k): k = %.2f\n",
    (n * sxy - sx * sy) / (n * sxx - sx * sx) }'

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
#
# --reduce: times `cudalens-report --reduce` (a recording reduced to its
# findings, where it was written: cudalens-report(1), REDUCED RESULTS)
# instead of the report, with the size of the reduced result.
#
# --ranks N [CALLS]: a job of N ranks (gen_recording --rank, an all-reduce
# a step, rank 1 with a mismatched one at step 4) of CALLS calls each
# (default 20000) in one folder; times the report of the N recordings
# (every call of every rank read), the reduction of each (sequential
# here; on a cluster each rank's runs where its recording is), the same
# report reading the reduced results beside the recordings, and the report
# of a folder holding only the N reduced results (the merge); the three
# reports must be the same bytes (text and JSON), else it fails.
#
# --clone N CALLS: the merge of N ranks of CALLS calls each (default
# 1000000), whose recordings would take hours to write here: one rank's
# recording (with its all-reduce a step) is written and reduced (timed),
# and its reduced result is copied as ranks 0..N-1 (its rank and the rank
# of each of its collectives changed), then the merge of the N reduced
# results is timed: the ranks' collectives agree (the merge compares
# their sums); then again with rank 1's last all-reduce one element longer
# (the ranks' collectives are read again and compared call by call).
#
#   bench/report_scale.sh [--reduce] BUILD_DIR [EVENTS...]
#   bench/report_scale.sh --ranks BUILD_DIR N [CALLS]
#   bench/report_scale.sh --clone BUILD_DIR N [CALLS]
set -eu
mode=report
case ${1:-} in
--reduce) mode=reduce; shift ;;
--ranks) mode=ranks; shift ;;
--clone) mode=clone; shift ;;
esac
[ $# -ge 1 ] || { echo "usage: $0 [--reduce] BUILD_DIR [EVENTS...] | --ranks BUILD_DIR N [CALLS]" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
[ $# -ge 1 ] || set -- 1000000 3000000 10000000
report=${REPORT:-$build/cudalens-report}
[ -x /usr/bin/time ] || { echo "$0: needs GNU time (/usr/bin/time)" >&2; exit 2; }
make -C "$build" bench/gen_recording >/dev/null
work=${TMPDIR:-/tmp}/cl-reportscale
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# timed LABEL CMD...: one table row of CMD's wall, CPU and peak RSS
timed() {
  label=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" || [ $? -eq 1 ]
  read -r wall user sys rss <"$work/time"
  cpu=$(echo "$user $sys" | awk '{ printf "%.2f", $1 + $2 }')
  printf '| %s | %s | %s | %s |\n' "$label" "$wall" "$cpu" $((rss / 1024)) >&3
}

if [ "$mode" = clone ]; then
  n=${1:?N}
  calls=${2:-1000000}
  db=$work/clone-$calls.db
  lone=$work/clone-$n-$calls
  [ -s "$db" ] || "$build/bench/gen_recording" --rank 0 --nranks "$n" "$db" "$calls" >/dev/null
  exec 3>&1
  printf '| %s ranks of %s calls | wall (s) | CPU (s) | peak RSS (MB) |\n' "$n" "$calls"
  printf '|---|---:|---:|---:|\n'
  timed "reduce one recording of $calls calls ($(($(wc -c <"$db") / 1000000)) MB)" \
    "$report" --reduce "$db"
  rm -rf "$lone" && mkdir -p "$lone"
  ncoll=$(grep -c '^coll ' "${db%.db}.cldr")
  # clone R... [--mismatch]: the reduced result as ranks R... (with
  # --mismatch, its last all-reduce one element longer), the end line's
  # checksum made again (FNV-1a 64 of the bytes before it)
  clone() {
    python3 - "${db%.db}.cldr" "$lone" "$@" <<'PY'
import sys
src, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
mismatch = "--mismatch" in args
lines = open(src, "rb").read().split(b"\n")[:-2]  # without end and ""
last = max(i for i, l in enumerate(lines) if l.startswith(b"coll "))
for r in (a for a in args if a != "--mismatch"):
    body = []
    for i, l in enumerate(lines):
        f = l.split(b" ")
        if f[0] == b"process":
            f[1] = r.encode()
        elif f[0] == b"coll":
            f[3] = r.encode()
            if mismatch and i == last:
                f[6] = str(int(f[6]) + 1).encode()
        body.append(b" ".join(f))
    data = b"\n".join(body) + b"\n"
    h = 0xcbf29ce484222325
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    open("%s/rank%s.cldr" % (out, r), "wb").write(data + b"end %016x\n" % h)
PY
  }
  command -v python3 >/dev/null || { echo "$0: --clone needs python3" >&2; exit 2; }
  # shellcheck disable=SC2046
  clone $(seq 0 $((n - 1)))
  timed "merge of the $n reduced results" "$report" "$lone" >"$work/clone.txt"
  ! grep -q "collective-mismatch" "$work/clone.txt" ||
    { echo "$0: a collective-mismatch among equal ranks" >&2; exit 1; }
  clone 1 --mismatch
  timed "merge, rank 1's last all-reduce longer" "$report" "$lone" >"$work/clone.txt"
  kb=$(du -sk "$lone" | cut -f1)
  echo "reduced results: $((kb / 1024)) MB for $n ranks ($((kb / n)) kB each, $ncoll all-reduces each)"
  grep -q "collective-mismatch\] NCCL collective $ncoll of a communicator of $n ranks" "$work/clone.txt" ||
    { echo "$0: the merge did not find the planted collective-mismatch" >&2; exit 1; }
  echo "the merge found the planted collective-mismatch"
  exit 0
fi

if [ "$mode" = ranks ]; then
  n=${1:?N}
  calls=${2:-20000}
  job=$work/job-$n-$calls
  lone=$work/lone-$n-$calls
  if [ ! -s "$job/rank$((n - 1)).db" ]; then
    rm -rf "$job" && mkdir -p "$job"
    r=0
    while [ "$r" -lt "$n" ]; do
      mis=
      [ "$r" -ne 1 ] || mis="--mismatch 4"
      # shellcheck disable=SC2086
      "$build/bench/gen_recording" --seed $((r + 1)) --rank "$r" --nranks "$n" \
        $mis "$job/rank$r.db" "$calls" >/dev/null
      r=$((r + 1))
    done
  fi
  rm -f "$job"/*.cldr
  rm -rf "$lone" && mkdir -p "$lone"
  exec 3>&1
  printf '| %s ranks of %s calls | wall (s) | CPU (s) | peak RSS (MB) |\n' "$n" "$calls"
  printf '|---|---:|---:|---:|\n'
  timed "report of the $n recordings" "$report" "$job" >"$work/full.txt"
  "$report" --format=json "$job" >"$work/full.json" || [ $? -eq 1 ]
  timed "reduce each recording (one after the other)" "$report" --reduce "$job"
  one=$(ls "$job"/*.cldr | head -1)
  timed "reduce one recording" "$report" --reduce "${one%.cldr}.db"
  timed "report reading the reduced results beside them" "$report" "$job" >"$work/beside.txt"
  cp "$job"/*.cldr "$lone"/
  timed "merge of the $n reduced results alone" "$report" "$lone" >"$work/lone.txt"
  "$report" --format=json "$job" >"$work/beside.json" || [ $? -eq 1 ]
  kb=$(du -sk "$lone" | cut -f1)
  echo "reduced results: $((kb / 1024)) MB for $n ranks ($((kb / n)) kB each)"
  cmp -s "$work/full.txt" "$work/beside.txt" ||
    { echo "$0: the report with reduced results differs" >&2; exit 1; }
  cmp -s "$work/full.json" "$work/beside.json" ||
    { echo "$0: the JSON report with reduced results differs" >&2; exit 1; }
  sed "s|$lone/|$job/|" "$work/lone.txt" | cmp -s "$work/full.txt" - ||
    { echo "$0: the merge of the reduced results alone differs" >&2; exit 1; }
  grep -q 'collective-mismatch' "$work/lone.txt" ||
    { echo "$0: no collective-mismatch in the merge" >&2; exit 1; }
  echo "the three reports are the same bytes (text and JSON); collective-mismatch found"
  exit 0
fi
printf '| events | DB size (MB) | wall (s) | CPU (s) | peak RSS (MB) |\n'
printf '|---:|---:|---:|---:|---:|\n'
fit=
for n in "$@"; do
  db=$work/rec-$n.db
  [ -s "$db" ] || "$build/bench/gen_recording" "$db" "$n" >/dev/null
  if [ "$mode" = reduce ]; then
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$report" --reduce "$db"
    echo "reduced result of $n calls: $(wc -c <"${db%.db}.cldr") bytes" >&2
  else
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$report" "$db" >/dev/null ||
      [ $? -eq 1 ]
  fi
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

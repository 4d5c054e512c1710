#!/bin/bash
# startup.sh - what the preloaded shim costs a process that never uses CUDA
# (issue 24, item 10): /bin/true, and a shell loop of 50 /bin/true (a job's
# scripts: the shell and each child load the shim), natively and with each
# given libcudalens.so preloaded.  Rounds run native, shim 1, shim 2, ...
# in turn, so that drifts of a shared machine hit all alike; it prints the
# median wall and CPU time (user + system of the processes, from bash's
# `times`) of each, and beside it the median of the per-round ratios to
# native.  No GPU needed, nothing is recorded.
#
#   bench/startup.sh [--rounds N] [--procs N] [LABEL=]SHIM...
#
# e.g. bench/startup.sh main=/usr/local/lib/libcudalens.so new=.libs/libcudalens.so
# --procs (default 200): /bin/true runs per round; --rounds default 11.
set -eu
rounds=11 procs=200
while [ $# -gt 0 ]; do
  case $1 in
  --rounds) rounds=$2; shift 2 ;;
  --procs) procs=$2; shift 2 ;;
  --) shift; break ;;
  -*) echo "usage: $0 [--rounds N] [--procs N] [LABEL=]SHIM..." >&2; exit 2 ;;
  *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: $0 [--rounds N] [--procs N] [LABEL=]SHIM..." >&2; exit 2; }
labels=(native) paths=("")
for a in "$@"; do
  case $a in
  *=*) l=${a%%=*} p=${a#*=} ;;
  *) l=$a p=$a ;;
  esac
  [ -r "$p" ] || { echo "$0: cannot read $p" >&2; exit 2; }
  labels+=("$l") paths+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")")
done
TRUE=/bin/true
[ -x "$TRUE" ] || TRUE=$(command -v true)
here=$(cd "$(dirname "$0")" && pwd) || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/cl-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" # nothing is written here (the shim records nothing)

# CPU=: user + system time of this shell's children so far, in us (the
# builtin in this shell: a command substitution would be another process);
# NOW=: the wall clock in us (bash 5's EPOCHREALTIME: no process either)
clock() {
  times >"$work/times"
  CPU=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { s = $i; m = s;
    sub(/m.*/, "", m); sub(/^[0-9]+m/, "", s); sub(/s$/, "", s);
    t += m * 60 + s } printf "%.0f", t * 1e6 }' "$work/times")
  NOW=${EPOCHREALTIME/[.,]/}
}
[ -n "${EPOCHREALTIME:-}" ] || { echo "$0: needs bash 5 (EPOCHREALTIME)" >&2; exit 2; }

# measure ROUND VARIANT: per-process /bin/true (us), the 50-process loop (us)
measure() {
  local pre=${paths[$2]} c0 t0 i
  clock; c0=$CPU t0=$NOW
  for ((i = 0; i < procs; i++)); do
    LD_PRELOAD=$pre "$TRUE"
  done
  clock
  echo "$1 $2 true $(( (NOW - t0) / procs )) $(( (CPU - c0) / procs ))" >>"$work/raw"
  clock; c0=$CPU t0=$NOW
  LD_PRELOAD=$pre /bin/sh -c 'i=0; while [ $i -lt 50 ]; do '"$TRUE"'; i=$((i+1)); done'
  clock
  echo "$1 $2 loop $((NOW - t0)) $((CPU - c0))" >>"$work/raw"
}

: >"$work/raw"
for ((r = 0; r < rounds; r++)); do
  for ((v = 0; v < ${#labels[@]}; v++)); do
    measure $r $v
  done
done

# median of the values on stdin
stats=$(cat "$here/stats.awk") || exit 2
median() { awk "$stats"'{ a[NR] = $1 } END { print median(a, NR) }'; }

echo "startup cost: $rounds rounds; /bin/true: $procs runs a round; loop: sh running 50 /bin/true"
printf '%-24s' ""
for l in "${labels[@]}"; do printf '%24s' "$l"; done
echo
for what in "true wall" "true cpu" "loop wall" "loop cpu"; do
  set -- $what
  col=$([ "$2" = wall ] && echo 4 || echo 5)
  unit=$([ "$1" = true ] && echo us || echo ms)
  name=$([ "$1" = true ] && echo "/bin/true $2" || echo "50-process loop $2")
  printf '%-24s' "$name"
  for ((v = 0; v < ${#labels[@]}; v++)); do
    m=$(awk -v v=$v -v w=$1 -v c=$col '$2 == v && $3 == w { print $c }' "$work/raw" | median)
    [ "$unit" = ms ] && m=$(awk -v m="$m" 'BEGIN { printf "%.1f", m / 1000 }')
    if [ "$v" -eq 0 ]; then
      printf '%24s' "$m $unit"
    else
      ratio=$(awk -v v=$v -v w=$1 -v c=$col '$3 == w && ($2 == 0 || $2 == v) {
        x[$1, $2] = $c } END { for (k in x) { split(k, p, SUBSEP);
        if (p[2] == v && x[p[1], 0] > 0) print x[k] / x[p[1], 0] } }' "$work/raw" | median)
      printf '%24s' "$m $unit (x$(printf '%.2f' "$ratio"))"
    fi
  done
  echo
done

#!/bin/sh
# pcsample.sh - where a process's CPU time goes, by function and source line
# of one object (e.g. libcudalens.so), on machines without perf: a preloaded
# sampler (bench/pcsample.c) counts the program counters the process's
# threads were at, up to 2,000 times a second of CPU time (PCSAMPLE_HZ;
# the kernel's tick caps it: 250 a second on our machines).
#
#   bench/pcsample.sh build OUT_DIR             OUT_DIR/libpcsample.so
#   bench/pcsample.sh run LIB OUT CMD [ARG...]  CMD with LIB preloaded
#                                               (after LD_PRELOAD's own),
#                                               the samples to OUT
#   bench/pcsample.sh table OUT MATCH [OBJECT]  the samples of OUT by object,
#                                               then those of the object
#                                               whose path contains MATCH
#                                               by function and line,
#                                               symbolized from OBJECT (a
#                                               copy of that object here;
#                                               default: its recorded path);
#                                               TID=N: thread N's samples only
#   bench/pcsample.sh threads OUT               the threads by samples, each
#                                               with its name and top objects
set -u

die() { echo "pcsample.sh: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)

# the top N lines of "count key" pairs summed by key, with their share
top() { # N TOTAL
  awk '{ n[$2] += $1 } END { for (k in n) print n[k], k }' |
    sort -k1,1nr | head -n "$1" |
    awk -v t="$2" '{ printf "%7d %5.1f%%  %s\n", $1, t ? 100 * $1 / t : 0, $2 }'
}

# OUT's sample lines, of thread $TID alone when set: COUNT OBJECT VADDR
samples() { awk -v tid="${TID:-}" '!/^#/ && (tid == "" || $4 == tid) { print $1, $2, $3 }' "$1"; }

[ $# -ge 1 ] || die "usage: pcsample.sh build OUT_DIR | run LIB OUT CMD... | table OUT MATCH [OBJECT] | threads OUT"
cmd=$1
shift
case $cmd in
build)
  [ $# -eq 1 ] || die "usage: pcsample.sh build OUT_DIR"
  mkdir -p "$1" || die "cannot make $1"
  ${CC:-cc} -O2 -Wall -Wextra -shared -fPIC -pthread -o "$1/libpcsample.so" \
    "$here/pcsample.c" || die "build failed" ;;
run)
  [ $# -ge 3 ] || die "usage: pcsample.sh run LIB OUT CMD [ARG...]"
  lib=$1 out=$2
  shift 2
  [ -r "$lib" ] || die "$lib: cannot read"
  case $lib in /*) ;; *) lib=$PWD/$lib ;; esac
  PCSAMPLE_OUT=$out LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$lib" "$@" ;;
table)
  [ $# -ge 2 ] && [ $# -le 3 ] || die "usage: pcsample.sh table OUT MATCH [OBJECT]"
  out=$1 match=$2
  [ -r "$out" ] || die "$out: cannot read"
  total=$(samples "$out" | awk '{ t += $1 } END { print t + 0 }')
  [ "$total" -gt 0 ] || die "$out: no samples${TID:+ of thread $TID}"
  echo "$total samples${TID:+ of thread $TID}; by object:"
  samples "$out" | awk '{ print $1, $2 }' | top 12 "$total"
  path=$(samples "$out" | awk -v m="$match" 'index($2, m) { print $2; exit }')
  [ -n "$path" ] || die "no samples in an object matching '$match'"
  obj=${3:-$path}
  [ -r "$obj" ] || die "$obj: cannot read (name a copy of $path)"
  command -v addr2line >/dev/null 2>&1 || die "addr2line not found (binutils)"
  mine=$(mktemp "${TMPDIR:-/tmp}/pcsample.XXXXXX") || die "mktemp failed"
  trap 'rm -f "$mine" "$mine.sym"' EXIT
  samples "$out" | awk -v p="$path" '$2 == p { print $1, $3 }' >"$mine"
  n=$(awk '{ t += $1 } END { print t + 0 }' "$mine")
  # two lines a sample address: its function, then file:line
  awk '{ print $2 }' "$mine" | addr2line -f -C -e "$obj" >"$mine.sym" ||
    die "addr2line failed on $obj"
  echo
  echo "$n samples in $path; by function (share of the object's):"
  paste -d ' ' "$mine" - - <"$mine.sym" | awk '{ print $1, $3 }' | top 25 "$n"
  echo
  echo "by source line:"
  paste -d ' ' "$mine" - - <"$mine.sym" |
    awk '{ sub(/.*\//, "", $4); print $1, $4 "(" $3 ")" }' |
    top 50 "$n" ;;
threads)
  [ $# -eq 1 ] || die "usage: pcsample.sh threads OUT"
  [ -r "$1" ] || die "$1: cannot read"
  by=$(mktemp "${TMPDIR:-/tmp}/pcsample.XXXXXX") || die "mktemp failed"
  trap 'rm -f "$by"' EXIT
  awk '$1 == "#" && $2 == "thread" { name[$3] = $4; next }
       { n[$4] += $1; t += $1; o = $2; sub(/.*\//, "", o); by[$4, o] += $1 }
       END {
         for (k in by) { split(k, p, SUBSEP); print p[1], by[k], p[2] > "/dev/stderr" }
         for (i in n) printf "%d %d %s %.1f\n", n[i], i, (i in name) ? name[i] : "?", t ? 100 * n[i] / t : 0
       }' "$1" 2>"$by" | sort -k1,1nr | while read -r c tid name share; do
    objs=$(awk -v t="$tid" '$1 == t { print $2, $3 }' "$by" | sort -k1,1nr | head -n 3 |
      awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')
    printf "%7d %5s%%  %-8s %-16s %s\n" "$c" "$share" "$tid" "$name" "$objs"
  done ;;
*)
  die "unknown command '$cmd' (build, run, table or threads)" ;;
esac

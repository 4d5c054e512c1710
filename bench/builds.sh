#!/bin/sh
# builds.sh - two builds of the shim compared against the spread of
# separate processes (issue 25, session 8).  phases.sh gives one process's
# ratios to +-1-3%, but the same build's processes differ by about 2%
# (bench/README.md, "Session 8"): a difference between builds shows only
# across several processes of each.  This runs phases.sh PAIRS times with
# each shim, in turn (A B, then B A, ...: neither always first), prints
# each process's cudalens/off and cudalens/floor, and for each ratio the
# median of A's processes and of B's, the median difference B - A within
# a pair, and in how many pairs B was below A, with the sign test's
# two-sided p (8 pairs all one way: 0.008).
#   bench/builds.sh PAIRS SHIM_A SHIM_B CMD [ARGS...]
#   e.g. bench/builds.sh 8 old/libcudalens.so new/libcudalens.so \
#          python3 bench/torch_train.py resnet18 1200 8
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: builds.sh PAIRS SHIM_A SHIM_B CMD [ARGS...]"
[ $# -ge 4 ] || { echo "$usage" >&2; exit 2; }
pairs=$1 a=$2 b=$3
shift 3
case $pairs in '' | *[!0-9]* | 0) echo "builds.sh: PAIRS must be a positive number" >&2; exit 2 ;; esac
for s in "$a" "$b"; do
  [ -r "$s" ] || { echo "builds.sh: no shim at $s" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "A: $a"
echo "B: $b"
: >"$tmp/rows"
i=1
while [ "$i" -le "$pairs" ]; do
  order="A B"
  [ $((i % 2)) -eq 1 ] || order="B A"
  for v in $order; do
    if [ "$v" = A ]; then s=$a; else s=$b; fi
    sh "$here/phases.sh" "$s" "$@" >"$tmp/out" || exit 1
    row=$(awk -v pair="$i" -v v="$v" '
      /^cudalens\/off:/ { off = $3 } /^cudalens\/floor:/ { fl = $3 }
      END { sub(",", "", off); sub(",", "", fl); printf "%d %s %s %s", pair, v, off, fl }' "$tmp/out")
    echo "$row" >>"$tmp/rows"
    echo "$row" | awk '{ printf "pair %d %s: cudalens/off %s cudalens/floor %s\n", $1, $2, $3, $4 }'
  done
  i=$((i + 1))
done
awk "$(cat "$here/stats.awk")"'
  { r[$1, $2, 3] = $3; r[$1, $2, 4] = $4; if ($1 > n) n = $1 }
  END {
    split("cudalens/off cudalens/floor", name, " ")
    for (c = 3; c <= 4; c++) {
      delete va; delete vb; delete d; below = 0
      for (i = 1; i <= n; i++) {
        va[i] = r[i, "A", c]; vb[i] = r[i, "B", c]; d[i] = vb[i] - va[i]
        below += d[i] < 0
      }
      lo = binom_le(below, n); hi = 1 - binom_le(below - 1, n); p = 2 * (lo < hi ? lo : hi)
      printf "%s: A %.3f, B %.3f (medians of %d processes each); B - A %+.3f (median of the pairs); B below A in %d of %d pairs (sign test p = %.3f)\n",
        name[c - 2], median(va, n), median(vb, n), n, median(d, n), below, n, (p > 1 ? 1 : p)
    }
  }' "$tmp/rows"

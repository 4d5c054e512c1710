#!/bin/sh
# ladder.sh - what each part of a recorded call costs the program (issue
# 25, session 12).  One benchmark under phases.sh (the in-process ratio
# cudalens/floor: bench/README.md), with the shim doing more on each rung:
#
#   ring    the call's record filled and handed over; the writer drops it
#           (a build with -DCUDALENS_ABLATE=5: shim/ablate.h)
#   record  ... and written to the recording (-DCUDALENS_ABLATE=1: no
#           kernel-parameter scan)
#   layout  ... and each launch's kernel layout found (-DCUDALENS_ABLATE=2)
#   scan    ... and the kernel parameters scanned: the words inside the
#           allocations' or host code's bounds kept for the writer to
#           resolve (a plain build)
#   immediate  the same, each word resolved on the calling thread, as
#           before session 14 (-DCUDALENS_ABLATE=8)
#   native  ... and the native stack (CUDALENS_PYTHON=0 CUDALENS_HOSTGUARD=0)
#   stacks  ... and the Python stack (CUDALENS_HOSTGUARD=0)
#   full    ... and the host check: cudalens as a user runs it
#
# The first five run with CUDALENS_STACK_DEPTH=0 CUDALENS_PYTHON=0
# CUDALENS_HOSTGUARD=0.  A rung's processes differ by about 2% (session
# 11): the table takes each rung's processes as its unit.
#
#   bench/ladder.sh build SRC_DIR DIR   SRC_DIR's committed HEAD built five
#                                       ways, into DIR/{ring,record,layout,
#                                       immediate,plain}/ (build_shim.sh)
#   bench/ladder.sh run DIR ROUNDS CMD [ARG...]
#                                       ROUNDS processes of each rung, a
#                                       round the rungs in turn (forwards,
#                                       then backwards), each process's
#                                       blocks appended to DIR/blocks/RUNG
#                                       as it ends; a line a process
#   bench/ladder.sh table DIR           each rung's cudalens/floor across
#                                       its processes (phases.sh --blocks)
#   bench/ladder.sh pair DIR A B        B's cudalens/floor over A's, round
#                                       by round (the k-th process of each:
#                                       rungs run in the same rounds), the
#                                       sign test's interval over rounds;
#                                       finer than two tables, as a round's
#                                       rungs share the machine's moment
#
# RUNGS="record layout ..." runs some of them; UNTIL=SECONDS starts no
# round once that many seconds have passed since the run began (a device
# call's limit: what ran is kept).  e.g., on a GPU machine:
#   bench/ladder.sh run DIR 4 python3 bench/torch_train.py resnet18 600 8
set -u
here=$(cd "$(dirname "$0")" && pwd)
all="ring record layout scan immediate native stacks full"
die() { echo "ladder.sh: $*" >&2; exit 2; }
usage="usage: ladder.sh build SRC_DIR DIR | run DIR ROUNDS CMD [ARG...] | table DIR | pair DIR A B"
rungs=${RUNGS:-$all}
for r in $rungs; do
  case " $all " in *" $r "*) ;; *) die "no rung $r (the rungs: $all)" ;; esac
done

# the build of rung $1 and the environment it runs with
build_of() {
  case $1 in ring | record | layout | immediate) echo "$1" ;; *) echo plain ;; esac
}
env_of() {
  case $1 in
    native) echo "CUDALENS_PYTHON=0 CUDALENS_HOSTGUARD=0" ;;
    stacks) echo "CUDALENS_HOSTGUARD=0" ;;
    full) ;;
    *) echo "CUDALENS_STACK_DEPTH=0 CUDALENS_PYTHON=0 CUDALENS_HOSTGUARD=0" ;;
  esac
}

[ $# -ge 2 ] || die "$usage"
cmd=$1 dir=$2
shift 2
case $cmd in
build)
  [ $# -eq 1 ] || die "usage: ladder.sh build SRC_DIR DIR"
  src=$dir dir=$1
  for b in ring:-DCUDALENS_ABLATE=5 record:-DCUDALENS_ABLATE=1 \
      layout:-DCUDALENS_ABLATE=2 immediate:-DCUDALENS_ABLATE=8 plain:; do
    sh "$here/build_shim.sh" "$src" "$dir/${b%%:*}" "${b#*:}" || exit 2
  done ;;
run)
  [ $# -ge 2 ] || die "usage: ladder.sh run DIR ROUNDS CMD [ARG...]"
  rounds=$1
  shift
  case $rounds in '' | *[!0-9]* | 0) die "ROUNDS must be a positive number" ;; esac
  for r in $rungs; do
    s=$dir/$(build_of "$r")/libcudalens.so
    [ -r "$s" ] || die "no shim at $s (ladder.sh build)"
  done
  mkdir -p "$dir/blocks" || exit 2
  tmp=$(mktemp -d) || die "mktemp failed"
  trap 'rm -rf "$tmp"' EXIT
  backwards=$(for r in $rungs; do echo "$r"; done | awk '{ v[NR] = $0 } END { for (i = NR; i > 0; i--) printf "%s ", v[i] }')
  case ${UNTIL:-} in *[!0-9]*) die "UNTIL must be a number of seconds" ;; esac
  began=$(date +%s)
  i=1
  while [ "$i" -le "$rounds" ]; do
    if [ -n "${UNTIL:-}" ] && [ $(($(date +%s) - began)) -ge "$UNTIL" ]; then
      echo "ladder.sh: UNTIL=$UNTIL s reached: $((i - 1)) of $rounds rounds run"
      break
    fi
    order=$rungs
    [ $((i % 2)) -eq 1 ] || order=$backwards
    for r in $order; do
      # (env, not the shell's assignments: the values come from env_of)
      env $(env_of "$r") KEEP="$tmp/kept" sh "$here/phases.sh" \
        "$dir/$(build_of "$r")/libcudalens.so" "$@" >"$tmp/out" 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; die "round $i, rung $r: phases.sh failed"; }
      cat "$tmp/kept" >>"$dir/blocks/$r" || exit 2
      echo "round $i $r: $(grep '^cudalens/floor:' "$tmp/out")"
    done
    i=$((i + 1))
  done ;;
table)
  [ $# -eq 0 ] || die "usage: ladder.sh table DIR"
  n=0
  for r in $rungs; do
    [ -s "$dir/blocks/$r" ] || continue
    line=$(sh "$here/phases.sh" --blocks "$dir/blocks/$r" | grep '^cudalens/floor across') || exit 2
    printf '%-7s %s\n' "$r" "${line#cudalens/floor across processes: }"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || die "no blocks in $dir/blocks (ladder.sh run)" ;;
pair)
  [ $# -eq 2 ] || die "usage: ladder.sh pair DIR A B"
  for r in "$1" "$2"; do
    case " $all " in *" $r "*) ;; *) die "no rung $r (the rungs: $all)" ;; esac
    [ -s "$dir/blocks/$r" ] || die "no blocks of $r in $dir/blocks (ladder.sh run)"
  done
  tmp=$(mktemp -d) || die "mktemp failed"
  trap 'rm -rf "$tmp"' EXIT
  for r in "$1" "$2"; do
    PROCESSES=$tmp/$r sh "$here/phases.sh" --blocks "$dir/blocks/$r" >/dev/null || exit 2
  done
  na=$(wc -l <"$tmp/$1") nb=$(wc -l <"$tmp/$2")
  [ "$na" -eq "$nb" ] ||
    echo "ladder.sh: $1 has $na processes, $2 $nb: the first $((na < nb ? na : nb)) of each paired"
  paste -d ' ' "$tmp/$1" "$tmp/$2" | head -n $((na < nb ? na : nb)) |
    awk -v label="$2/$1 by round" -v unit=rounds \
      -f "$here/stats.awk" -f "$here/paired_ci.awk" ;;
*)
  die "$usage" ;;
esac

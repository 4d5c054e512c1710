#!/bin/sh
# selftime.sh - where the shim's own time goes per CUDA call, from a build
# with -DCUDALENS_SELFTIME (shim/selftime.h: TSC cycles of each phase of
# the CUPTI callback, printed at exit), for machines without perf.  Builds
# that variant, runs a command under it, and prints each phase per call in
# steady state: the costs that an average would spread over every call
# are taken out and shown apart: the driver's first answers about each
# kernel's parameters (which load the kernel) and libgcc's walks (through
# stacks not seen before, and the check of every 1024th walk: the one
# part of them that recurs, counted apart).
#
#   bench/selftime.sh build SRC_DIR OUT_DIR   the committed HEAD of SRC_DIR
#                                             built with the phases counted:
#                                             OUT_DIR/libcudalens.so (and
#                                             libcudalens-sqlite.so)
#   bench/selftime.sh run SHIM CMD [ARG...]   CMD under SHIM (its output as
#                                             usual), then the table
#   bench/selftime.sh table FILE              the table from a saved stderr
set -u

die() { echo "selftime.sh: $*" >&2; exit 2; }

# table FILE: the per-call breakdown of the `cudalens: selftime` lines in FILE
table() {
  awk '
    $1 == "cudalens:" && $2 == "selftime" { n[$3] = $4; ms[$3] = $6; seen = 1 }
    function per(name, less) { return n[name] ? (ms[name] - less) * 1000 / n[name] : 0 }
    # a phase: its time and, where the build counts them, what it did
    function row(label, us, counts) { printf "  %-20s %6.3f%s\n", label, us, counts }
    END {
      if (!seen || !n["native-stack"]) {
        print "selftime.sh: no selftime lines with calls (a -DCUDALENS_SELFTIME build?)" > "/dev/stderr"
        exit 1
      }
      calls = n["native-stack"]  # one stack per outermost call
      read = ms["kparams-read"] + 0; slow = ms["stack-libgcc"] + 0
      printf "%d calls, %d launches scanned; apart: %.1f ms reading %d kernels'"'"' layouts, %.1f ms in %d libgcc walks (%d where a fast walk failed, %d checks of every 1024th walk)\n",
        calls, n["kernel-params"], read, n["kparams-read"], slow, n["stack-libgcc"],
        n["stack-fastmiss"], n["stack-libgcc"] - n["stack-fastmiss"]
      printf "per call, steady state (us):\n"
      row("the shim, all of it", (ms["callback"] - read - slow) * 1000 / calls, "")
      c = ""
      if ("stack-steps" in n)
        c = sprintf("  (%.1f frames walked by rules a walk, %.0f%% of walks ended in the memo)",
          n["stack-steps"] / calls, 100 * n["stack-memohit"] / calls)
      row("native stack", per("native-stack", slow), c)
      c = ""
      if (n["python-stack"] && "pystack-built" in n)
        c = sprintf("  (%.1f%% of captures built anew)", 100 * n["pystack-built"] / n["python-stack"])
      row("Python stack", per("python-stack", 0), c)
      c = ""
      if (n["kernel-params"] && "kparams-search" in n)
        c = sprintf(" (%.1f words, %.2f map searches, %.1f host-code lookups%s)",
          n["kparams-words"] / n["kernel-params"], n["kparams-search"] / n["kernel-params"],
          n["kparams-code"] / n["kernel-params"],
          # (since session 14, the writer resolves the words of the others)
          "kparams-now" in n ? sprintf(", %.0f%% resolved on the thread", 100 * n["kparams-now"] / n["kernel-params"]) : "")
      if (n["kernel-params"])
        row("kernel parameters", per("kernel-params", read), "  a launch" c)
      row("record", per("record", 0), "")
      c = ""
      if (n["kernel-params"] && "guard-parse" in n)
        c = sprintf("  (%.1f kernel names parsed per 1,000 launches)", 1000 * n["guard-parse"] / n["kernel-params"])
      row("host check", per("host-guard", 0), c)
      c = ""
      if (n["intern"] && "intern-slow" in n)
        c = sprintf("  (%.1f%% not in the thread'"'"'s cache)", 100 * n["intern-slow"] / n["intern"])
      row("kernel name", per("intern", 0), c)
    }' "$1"
}

[ $# -ge 1 ] || die "usage: selftime.sh build SRC_DIR OUT_DIR | run SHIM CMD... | table FILE"
cmd=$1
shift
case $cmd in
build)
  [ $# -eq 2 ] || die "usage: selftime.sh build SRC_DIR OUT_DIR"
  sh "$(dirname "$0")/build_shim.sh" "$1" "$2" -DCUDALENS_SELFTIME ;;
run)
  [ $# -ge 2 ] || die "usage: selftime.sh run SHIM CMD [ARG...]"
  shim=$1
  shift
  [ -f "$shim" ] || die "$shim: no such file"
  err=$(mktemp "${TMPDIR:-/tmp}/selftime.XXXXXX") || die "mktemp failed"
  trap 'rm -f "$err"' EXIT
  env LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" "$@" 2>"$err"
  rc=$?
  grep -v '^cudalens: selftime' "$err" >&2
  table "$err" || exit 1
  exit $rc ;;
table)
  [ $# -eq 1 ] || die "usage: selftime.sh table FILE"
  [ -r "$1" ] || die "$1: cannot read"
  table "$1" ;;
*)
  die "unknown command '$cmd' (build, run or table)" ;;
esac
